#include "posekit_jpeg.h"
#include <setjmp.h>
#include <stdio.h>   /* before jpeglib.h, which uses FILE */
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

/* libjpeg's default error_exit calls exit(); this one jumps back instead. */
struct error_manager {
    struct jpeg_error_mgr base;
    jmp_buf jump;
};

static void error_exit(j_common_ptr info) {
    longjmp(((struct error_manager *)info->err)->jump, 1);
}

/* Warnings (corrupt data libjpeg can go past) are not printed to stderr. */
static void quiet(j_common_ptr info, int level) { (void)info; (void)level; }

unsigned char *posekit_jpeg_encode_rgb(const unsigned char *rgb, int width, int height, size_t stride, int quality,
                                       size_t *size, char *message, size_t message_size) {
    struct jpeg_compress_struct encoder;
    struct error_manager errors;
    unsigned char *volatile output = NULL;
    unsigned long volatile output_size = 0;
    encoder.err = jpeg_std_error(&errors.base);
    errors.base.error_exit = error_exit;
    errors.base.emit_message = quiet;
    if (setjmp(errors.jump)) {
        (*encoder.err->format_message)((j_common_ptr)&encoder, message);
        jpeg_destroy_compress(&encoder);
        free(output);
        return NULL;
    }
    jpeg_create_compress(&encoder);
    jpeg_mem_dest(&encoder, (unsigned char **)&output, (unsigned long *)&output_size);
    encoder.image_width = (JDIMENSION)width;
    encoder.image_height = (JDIMENSION)height;
    encoder.input_components = 3;
    encoder.in_color_space = JCS_RGB;
    jpeg_set_defaults(&encoder);
    jpeg_set_quality(&encoder, quality, TRUE);
    encoder.dct_method = JDCT_IFAST;
    jpeg_start_compress(&encoder, TRUE);
    while (encoder.next_scanline < encoder.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + stride * encoder.next_scanline);
        jpeg_write_scanlines(&encoder, &row, 1);
    }
    jpeg_finish_compress(&encoder);
    jpeg_destroy_compress(&encoder);
    *size = output_size;
    (void)message_size;
    return output;
}

unsigned char *posekit_jpeg_decode_rgb(const unsigned char *jpeg, size_t size, long max_pixels, int *width, int *height,
                                       char *message, size_t message_size) {
    struct jpeg_decompress_struct decoder;
    struct error_manager errors;
    unsigned char *volatile pixels = NULL;
    decoder.err = jpeg_std_error(&errors.base);
    errors.base.error_exit = error_exit;
    errors.base.emit_message = quiet;
    if (setjmp(errors.jump)) {
        (*decoder.err->format_message)((j_common_ptr)&decoder, message);
        jpeg_destroy_decompress(&decoder);
        free(pixels);
        return NULL;
    }
    jpeg_create_decompress(&decoder);
    jpeg_mem_src(&decoder, jpeg, (unsigned long)size);
    jpeg_read_header(&decoder, TRUE);
    if ((long)decoder.image_width * (long)decoder.image_height > max_pixels) {
        snprintf(message, message_size, "a %ux%u JPEG is larger than %ld pixels", decoder.image_width, decoder.image_height, max_pixels);
        jpeg_destroy_decompress(&decoder);
        return NULL;
    }
    decoder.out_color_space = JCS_RGB;
    jpeg_start_decompress(&decoder);
    size_t row_bytes = (size_t)decoder.output_width * 3;
    pixels = malloc(row_bytes * decoder.output_height);
    if (!pixels) {
        snprintf(message, message_size, "out of memory");
        jpeg_destroy_decompress(&decoder);
        return NULL;
    }
    while (decoder.output_scanline < decoder.output_height) {
        JSAMPROW row = pixels + row_bytes * decoder.output_scanline;
        jpeg_read_scanlines(&decoder, &row, 1);
    }
    *width = (int)decoder.output_width;
    *height = (int)decoder.output_height;
    jpeg_finish_decompress(&decoder);
    jpeg_destroy_decompress(&decoder);
    return pixels;
}

void posekit_jpeg_free(void *buffer) { free(buffer); }
