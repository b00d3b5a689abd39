/* report_format.h - numbers as the README's tables write them */
#ifndef HARNESS_REPORT_FORMAT_H
#define HARNESS_REPORT_FORMAT_H

#include <stddef.h>

/* v with thousands separated as the README writes them: 1,048,576. */
void report_grouped(char *buf, size_t len, long long v);

#endif
