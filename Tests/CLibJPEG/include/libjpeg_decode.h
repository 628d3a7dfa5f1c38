#ifndef POSEKIT_LIBJPEG_DECODE_H
#define POSEKIT_LIBJPEG_DECODE_H
#include <stddef.h>

/// Decodes the JPEG file at `path` to 8-bit RGB with libjpeg's defaults (islow IDCT, fancy
/// upsampling), as PIL's `Image.open(path).convert('RGB')` does. On success returns a malloc'ed
/// buffer of `*width * *height * 3` bytes (free it with `free`); on failure returns NULL and
/// writes libjpeg's message into `message`, which must hold at least 200 bytes (JMSG_LENGTH_MAX).
unsigned char *posekit_libjpeg_decode(const char *path, int *width, int *height, char *message, size_t message_size);

#endif
