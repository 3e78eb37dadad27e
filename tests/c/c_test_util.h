/* What the C test programs share (runtime C API only): a CHECK that counts, and a growing
 * text buffer for the library's string callbacks. */
#ifndef TESSERA_TESTS_C_TEST_UTIL_H_
#define TESSERA_TESTS_C_TEST_UTIL_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera/c_runtime_api.h"

static int passed = 0, failed = 0;

/* Counts a check; a failure prints where, what and the library's last error. */
#define CHECK(COND)                                                                            \
  do {                                                                                         \
    if (COND) {                                                                                \
      ++passed;                                                                                \
    } else {                                                                                   \
      ++failed;                                                                                \
      fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__, __LINE__, #COND, \
              TsGetLastError());                                                               \
    }                                                                                          \
  } while (0)

/* Text the library hands a TsStringCallback, appended (NUL-terminated; free `text`). */
typedef struct {
  char* text;
  size_t length;
} GrowingBuffer;

/* A TsStringCallback appending to the GrowingBuffer `user`. */
static void append_growing(const char* data, size_t length, void* user) {
  GrowingBuffer* b = (GrowingBuffer*)user;
  b->text = (char*)realloc(b->text, b->length + length + 1);
  memcpy(b->text + b->length, data, length);
  b->length += length;
  b->text[b->length] = '\0';
}

#endif /* TESSERA_TESTS_C_TEST_UTIL_H_ */
