#!/usr/bin/env bash
# on-first-gpu.sh CMD [ARGS...] - runs CMD with only the first visible GPU visible.
#
# CUDA_VISIBLE_DEVICES unset means every GPU, and its first is GPU 0; set,
# its first entry is the first GPU; set but empty means none, and stays so.
# make test runs every test but the distributed GPU tests this way: each
# test starts processes that start CUDA, and on a machine of several GPUs
# tests that could use them all would share them with the tests beside them.
if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then first=${CUDA_VISIBLE_DEVICES%%,*}; else first=0; fi
CUDA_VISIBLE_DEVICES=$first exec "$@"
