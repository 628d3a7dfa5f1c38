#ifndef POSEKIT_JPEG_H
#define POSEKIT_JPEG_H
#include <stddef.h>

/// Encodes 8-bit interleaved RGB (`stride` bytes per row) as a baseline JPEG at `quality` (1...100),
/// 4:2:0, libjpeg's fast integer DCT, into a buffer libjpeg allocates: on success returns it and
/// sets `*size` (free it with `posekit_jpeg_free`); on failure returns NULL and writes libjpeg's
/// message into `message` (at least 200 bytes: JMSG_LENGTH_MAX).
unsigned char *posekit_jpeg_encode_rgb(const unsigned char *rgb, int width, int height, size_t stride, int quality,
                                       size_t *size, char *message, size_t message_size);

/// Encodes planar 8-bit Y'CbCr 4:2:0 (BT.601; the Y plane `width` x `height`, each chroma plane
/// `(width+1)/2` x `(height+1)/2`, rows contiguous) as `posekit_jpeg_encode_rgb` encodes RGB, without
/// going through RGB: JPEG stores Y'CbCr 4:2:0 itself, so the samples are handed to the DCT as they
/// are (libjpeg's raw-data interface), after `limited_range` samples (Y 16-235, C 16-240) are
/// stretched to the full range JFIF decoders assume.
unsigned char *posekit_jpeg_encode_yuv420(const unsigned char *y, const unsigned char *cb, const unsigned char *cr,
                                          int width, int height, int limited_range, int quality,
                                          size_t *size, char *message, size_t message_size);

/// Decodes a JPEG held in memory to 8-bit RGB: a malloc'ed buffer of `*width * *height * 3` bytes
/// (free it with `posekit_jpeg_free`), or NULL with libjpeg's message in `message`. Images over
/// `max_pixels` are refused before any pixel is decoded.
unsigned char *posekit_jpeg_decode_rgb(const unsigned char *jpeg, size_t size, long max_pixels, int *width, int *height,
                                       char *message, size_t message_size);

/// Frees what the two functions above return.
void posekit_jpeg_free(void *buffer);

#endif
