#include "CCarryonZlib.h"

#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

struct carryon_inflater {
    z_stream stream;
};

carryon_inflater *carryon_inflater_create(void) {
    carryon_inflater *inflater = calloc(1, sizeof *inflater);
    if (inflater == NULL) return NULL;
    // 15 window bits, +32: detect a gzip or a zlib header.
    if (inflateInit2(&inflater->stream, 15 + 32) != Z_OK) {
        free(inflater);
        return NULL;
    }
    return inflater;
}

int carryon_inflate(carryon_inflater *inflater, const unsigned char *input, size_t input_length, size_t *consumed,
                    unsigned char *output, size_t output_capacity, size_t *produced) {
    z_stream *stream = &inflater->stream;
    uInt in = input_length > UINT_MAX ? UINT_MAX : (uInt)input_length;
    uInt out = output_capacity > UINT_MAX ? UINT_MAX : (uInt)output_capacity;
    stream->next_in = (Bytef *)input;
    stream->avail_in = in;
    stream->next_out = output;
    stream->avail_out = out;
    int status = inflate(stream, Z_NO_FLUSH);
    *consumed = in - stream->avail_in;
    *produced = out - stream->avail_out;
    switch (status) {
    case Z_STREAM_END:
        return 1;
    case Z_OK:
    case Z_BUF_ERROR: // no progress without more input or room: not an error
        return 0;
    default:
        return -1;
    }
}

int carryon_inflater_reset(carryon_inflater *inflater) {
    return inflateReset(&inflater->stream) == Z_OK ? 0 : -1;
}

const char *carryon_inflater_message(const carryon_inflater *inflater) {
    return inflater->stream.msg;
}

void carryon_inflater_destroy(carryon_inflater *inflater) {
    if (inflater == NULL) return;
    inflateEnd(&inflater->stream);
    free(inflater);
}
