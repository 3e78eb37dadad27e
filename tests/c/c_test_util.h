/* What the C test programs share (runtime C API only): a CHECK that counts, a growing text
 * buffer for the library's string callbacks, string and error checks. */
#ifndef TESSERA_TESTS_C_TEST_UTIL_H_
#define TESSERA_TESTS_C_TEST_UTIL_H_

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera/c_runtime_api.h"

static int passed = 0, failed = 0;

/* The dtype of most test tensors. */
static const TsDType kF32 = {2, 32, 1};

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

/* 1 when the borrowed string `ref` is `text`. */
static inline int ref_is(TsStringRef ref, const char* text) {
  return ref.length == strlen(text) && (ref.length == 0 || memcmp(ref.data, text, ref.length) == 0);
}

/* What a failing callback does: sets the last error to `message` and returns `status`. */
static inline TsStatus fail_with(TsStatus status, const char* message) {
  TsSetLastError(message);
  return status;
}

/* 1 when the library's last error message contains `text`. */
static inline int error_has(const char* text) {
  return strstr(TsGetLastError(), text) != NULL;
}

/* Prints the counts; main's exit status (1 when a check failed). */
static inline int check_summary(void) {
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

#endif /* TESSERA_TESTS_C_TEST_UTIL_H_ */
