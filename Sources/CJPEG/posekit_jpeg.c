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

/* Both encoders' settings, into a memory buffer libjpeg grows: baseline at `quality`, 4:2:0 (libjpeg's
 * default sampling), the fast integer DCT. Called after the caller's setjmp (a longjmp back to a
 * returned function's frame would be undefined). */
static void start_encoder(j_compress_ptr encoder, unsigned char **output, unsigned long *output_size, int width, int height,
                          J_COLOR_SPACE space, int quality) {
    jpeg_create_compress(encoder);
    jpeg_mem_dest(encoder, output, output_size);
    encoder->image_width = (JDIMENSION)width;
    encoder->image_height = (JDIMENSION)height;
    encoder->input_components = 3;
    encoder->in_color_space = space;
    jpeg_set_defaults(encoder);
    jpeg_set_quality(encoder, quality, TRUE);
    encoder->dct_method = JDCT_IFAST;
}

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
    start_encoder(&encoder, (unsigned char **)&output, (unsigned long *)&output_size, width, height, JCS_RGB, quality);
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

/* Copies `rows` rows of a `width` x `height` plane, from row `top`, into `band` (rows `padded`
 * bytes wide) through `map`, repeating the last column and the last row into the padding: the
 * raw-data interface reads whole 8x8 blocks of every component. */
static void fill_band(JSAMPROW *band, int rows, int padded, const unsigned char *plane, int width, int height, int top,
                      const unsigned char *map) {
    for (int r = 0; r < rows; r++) {
        int source = top + r < height ? top + r : height - 1;
        const unsigned char *in = plane + (size_t)source * (size_t)width;
        unsigned char *out = band[r];
        for (int x = 0; x < width; x++) out[x] = map[in[x]];
        for (int x = width; x < padded; x++) out[x] = out[width - 1];
    }
}

unsigned char *posekit_jpeg_encode_yuv420(const unsigned char *y, const unsigned char *cb, const unsigned char *cr,
                                          int width, int height, int limited_range, int quality,
                                          size_t *size, char *message, size_t message_size) {
    struct jpeg_compress_struct encoder;
    struct error_manager errors;
    unsigned char *volatile output = NULL;
    unsigned long volatile output_size = 0;
    unsigned char *volatile staging = NULL;
    encoder.err = jpeg_std_error(&errors.base);
    errors.base.error_exit = error_exit;
    errors.base.emit_message = quiet;
    if (setjmp(errors.jump)) {
        (*encoder.err->format_message)((j_common_ptr)&encoder, message);
        jpeg_destroy_compress(&encoder);
        free(output);
        free(staging);
        return NULL;
    }
    /* Limited to full range (JFIF's), or the identity. */
    unsigned char luma_map[256], chroma_map[256];
    for (int v = 0; v < 256; v++) {
        int l = limited_range ? ((v - 16) * 255 * 2 + 219) / (219 * 2) : v;
        int c = limited_range ? 128 + ((v - 128) * 255 * 2 + (v >= 128 ? 224 : -224)) / (224 * 2) : v;
        luma_map[v] = (unsigned char)(l < 0 ? 0 : l > 255 ? 255 : l);
        chroma_map[v] = (unsigned char)(c < 0 ? 0 : c > 255 ? 255 : c);
    }
    int chroma_width = (width + 1) / 2, chroma_height = (height + 1) / 2;
    /* One band: 16 luma rows and 8 rows of each chroma plane, widths padded to whole MCUs. */
    int luma_padded = (width + 15) / 16 * 16, chroma_padded = luma_padded / 2;
    staging = malloc((size_t)luma_padded * 16 + (size_t)chroma_padded * 16);
    if (!staging) {
        snprintf(message, message_size, "out of memory");
        return NULL;
    }
    JSAMPROW luma_rows[16], cb_rows[8], cr_rows[8];
    for (int r = 0; r < 16; r++) luma_rows[r] = staging + (size_t)luma_padded * r;
    for (int r = 0; r < 8; r++) {
        cb_rows[r] = staging + (size_t)luma_padded * 16 + (size_t)chroma_padded * r;
        cr_rows[r] = staging + (size_t)luma_padded * 16 + (size_t)chroma_padded * (8 + r);
    }
    JSAMPARRAY planes[3] = { luma_rows, cb_rows, cr_rows };

    start_encoder(&encoder, (unsigned char **)&output, (unsigned long *)&output_size, width, height, JCS_YCbCr, quality);
    encoder.raw_data_in = TRUE;
    encoder.comp_info[0].h_samp_factor = 2; encoder.comp_info[0].v_samp_factor = 2;
    encoder.comp_info[1].h_samp_factor = 1; encoder.comp_info[1].v_samp_factor = 1;
    encoder.comp_info[2].h_samp_factor = 1; encoder.comp_info[2].v_samp_factor = 1;
    jpeg_start_compress(&encoder, TRUE);
    for (int top = 0; top < height; top += 16) {
        fill_band(luma_rows, 16, luma_padded, y, width, height, top, luma_map);
        fill_band(cb_rows, 8, chroma_padded, cb, chroma_width, chroma_height, top / 2, chroma_map);
        fill_band(cr_rows, 8, chroma_padded, cr, chroma_width, chroma_height, top / 2, chroma_map);
        jpeg_write_raw_data(&encoder, planes, 16);
    }
    jpeg_finish_compress(&encoder);
    jpeg_destroy_compress(&encoder);
    free(staging);
    *size = output_size;
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
