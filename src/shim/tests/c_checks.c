/* Checks and the errno-returning ioctl the C11 libdrm clients share. */
#include "c_checks.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <xf86drm.h>

static int g_checks, g_failures;

int check(int ok, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("%s ", ok ? "ok  " : "FAIL");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  g_checks++;
  if (!ok) g_failures++;
  return ok;
}

int check_summary(const char* name) {
  printf("%s: %d checks, %d failures\n", name, g_checks, g_failures);
  return g_failures ? 1 : 0;
}

int xioctl(int fd, unsigned long request, void* arg) { return drmIoctl(fd, request, arg) ? -errno : 0; }
