/* report_format.c - numbers as the results tables write them */
#include "report_format.h"

#include <stdio.h>
#include <string.h>

void report_grouped(char *buf, size_t len, long long v)
{
	char digits[32];
	snprintf(digits, sizeof digits, "%lld", v);
	size_t nd = strlen(digits), k = 0;
	for (size_t i = 0; i < nd && k + 2 < len; i++) {
		if (i > 0 && (nd - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = '\0';
}
