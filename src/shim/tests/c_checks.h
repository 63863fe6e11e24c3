/* Checks and the errno-returning ioctl the C11 libdrm clients share (the
 * shim's drm_client and the gpu's compute and render clients). */
#ifndef AGX_C_CHECKS_H
#define AGX_C_CHECKS_H

/* Prints "ok   ..." or "FAIL ..." and counts it; returns ok. */
int check(int ok, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "NAME: N checks, M failures"; returns the exit status (1 on a failure). */
int check_summary(const char* name);
/* drmIoctl, returning -errno on failure and 0 on success. */
int xioctl(int fd, unsigned long request, void* arg);

#endif
