#include "libjpeg_decode.h"
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

unsigned char *posekit_libjpeg_decode(const char *path, int *width, int *height, char *message, size_t message_size) {
    FILE *file = fopen(path, "rb");
    if (!file) {
        snprintf(message, message_size, "cannot open the file");
        return NULL;
    }
    struct jpeg_decompress_struct decoder;
    struct error_manager errors;
    unsigned char *volatile pixels = NULL;
    decoder.err = jpeg_std_error(&errors.base);
    errors.base.error_exit = error_exit;
    if (setjmp(errors.jump)) {
        (*decoder.err->format_message)((j_common_ptr)&decoder, message);
        jpeg_destroy_decompress(&decoder);
        fclose(file);
        free(pixels);
        return NULL;
    }
    jpeg_create_decompress(&decoder);
    jpeg_stdio_src(&decoder, file);
    jpeg_read_header(&decoder, TRUE);
    decoder.out_color_space = JCS_RGB;
    jpeg_start_decompress(&decoder);
    size_t stride = (size_t)decoder.output_width * 3;
    pixels = malloc(stride * decoder.output_height);
    if (!pixels) {
        snprintf(message, message_size, "out of memory");
        jpeg_destroy_decompress(&decoder);
        fclose(file);
        return NULL;
    }
    while (decoder.output_scanline < decoder.output_height) {
        JSAMPROW row = pixels + stride * decoder.output_scanline;
        jpeg_read_scanlines(&decoder, &row, 1);
    }
    *width = (int)decoder.output_width;
    *height = (int)decoder.output_height;
    jpeg_finish_decompress(&decoder);
    jpeg_destroy_decompress(&decoder);
    fclose(file);
    return pixels;
}
