/* test_gpu_select.c - --gpu and CUDA_VISIBLE_DEVICES on a GPU: the GPU a run used, named in its sidecar */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../harness/core/csv_table.h"
#include "../harness/core/gpu_device.h"
#include "../harness/core/json_in.h"
#include "cli_run.h"
#include "gpu_require.h"
#include "tmp_dir.h"

/* Runs "[env] harness run ARGS --out DIR/name.csv" (exit 0) and reads its
 * sidecar's gpu_selection into sel (v holds the document; caller frees). */
static const struct json_in_value *select_run(const char *env, const char *args, const char *dir,
					      const char *name, struct json_in_value *v)
{
	char cmd[2048], err[4096], side[256];
	snprintf(cmd, sizeof cmd, "%s %s run %s --min-time 0 --max-time 0.05 --out %s/%s.csv",
		 env ? env : "", cli_harness_bin(), args, dir, name);
	cr_assert_eq(cli_run(cmd, err, sizeof err), 0, "%s: %s", cmd, err);
	snprintf(side, sizeof side, "%s/%s.meta.json", dir, name);
	cr_assert_eq(json_in_read_file(side, v, err, sizeof err), 0, "%s", err);
	const struct json_in_value *sel = json_in_member(v, "gpu_selection");
	cr_assert_not_null(sel);
	return sel;
}

static const char *select_string(const struct json_in_value *sel, const char *key)
{
	const struct json_in_value *s = json_in_member(sel, key);
	cr_assert(s && s->type == JSON_IN_STRING, "no string '%s'", key);
	return s->string;
}

Test(gpu_select, the_sidecar_names_the_gpu_by_index_and_identity, .timeout = 120)
{
	require_gpu();
	struct gpu_device_info g;
	cr_assert_eq(gpu_device_query(0, &g), 0);
	cr_expect(strncmp(g.uuid, "GPU-", 4) == 0 && strlen(g.uuid) == 40, "nvidia-smi's form: %s",
		  g.uuid);
	char dir[64], env[128];
	tmp_dir_make(dir, "gpu-select");
	struct json_in_value v;
	const struct json_in_value *sel = select_run(NULL, "--gpu 0 --variant auto --n 1024", dir, "a", &v);
	cr_expect_eq(json_in_member(sel, "index")->number, 0);
	cr_expect_str_eq(select_string(sel, "uuid"), g.uuid);
	cr_expect_str_eq(select_string(sel, "pci_bus_id"), g.pci_bus_id);
	json_in_free(&v);
	/* the UUID the sidecar records is one CUDA_VISIBLE_DEVICES takes, and
	 * names the same GPU under another numbering */
	snprintf(env, sizeof env, "CUDA_VISIBLE_DEVICES=%s", g.uuid);
	sel = select_run(env, "--variant auto --n 1024", dir, "b", &v);
	cr_expect_str_eq(select_string(sel, "cuda_visible_devices"), g.uuid);
	cr_expect_eq(json_in_member(sel, "visible_gpus")->number, 1);
	cr_expect_eq(json_in_member(sel, "index")->number, 0);
	cr_expect_str_eq(select_string(sel, "uuid"), g.uuid);
	json_in_free(&v);
	/* the row's device is that GPU */
	char path[128], err[256];
	struct csv_table t;
	snprintf(path, sizeof path, "%s/b.csv", dir);
	cr_assert_eq(csv_table_read(path, &t, err, sizeof err), 0, "%s", err);
	cr_expect_str_eq(csv_table_named(&t, 0, "device_name"), g.name);
	csv_table_free(&t);
	/* past the visible GPUs: one line with their count */
	char cmd[512], mention[64];
	snprintf(cmd, sizeof cmd, "%s %s run --gpu 1 --variant auto --n 1024", env, cli_harness_bin());
	cr_expect_eq(cli_run(cmd, err, sizeof err), 2, "%s", err);
	snprintf(mention, sizeof mention, "--gpu 1: 1 GPU is visible here with CUDA_VISIBLE_DEVICES='%s'",
		 g.uuid);
	cr_expect(strstr(err, mention), "%s", err);
	tmp_dir_remove(dir);
}
