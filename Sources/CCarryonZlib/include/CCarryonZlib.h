#ifndef CCARRYON_ZLIB_H
#define CCARRYON_ZLIB_H

#include <stddef.h>

/// zlib's inflate for a body sent with Content-Encoding gzip or deflate: inflateInit2 is a
/// macro Swift cannot call, so the stream lives here behind three functions.
typedef struct carryon_inflater carryon_inflater;

/// A decoder for gzip or zlib data (the header tells which); NULL when out of memory.
carryon_inflater *carryon_inflater_create(void);

/// Decodes from `input` into `output`, setting how much of each was used. Returns 0 while the
/// stream goes on, 1 at its end (a gzip member's end: `carryon_inflater_reset` reads the next
/// one, if more input follows), -1 for data that is not gzip or zlib (`carryon_inflater_message`
/// says why).
int carryon_inflate(carryon_inflater *inflater, const unsigned char *input, size_t input_length, size_t *consumed,
                    unsigned char *output, size_t output_capacity, size_t *produced);

/// Starts a new stream (the next member of a multi-member gzip body).
int carryon_inflater_reset(carryon_inflater *inflater);

/// zlib's message for the last error, or NULL.
const char *carryon_inflater_message(const carryon_inflater *inflater);

void carryon_inflater_destroy(carryon_inflater *inflater);

#endif
