/*
 * check.h: the tiny assertion helper shared by the crio-pin C tests.
 *
 * Every CHECK* macro takes the name of the case it belongs to (a string,
 * e.g. the `name` field of a table row), counts a pass or a failure, and
 * prints the case name, the location and the values of every failure.
 * A program ends with `return check_summary();`, which prints exactly
 * `N passed, M failed` and returns non-zero when M > 0.
 *
 * The counters are not thread-safe: call the macros from one thread only
 * (test_threads.c counts inside its threads and checks the totals after
 * joining them).
 */
#ifndef CRIO_PIN_CHECK_H
#define CRIO_PIN_CHECK_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long check_passed_count;
static unsigned long check_failed_count;

/* Records one check; prints the failure. Returns `ok`. */
static inline int check_record(int ok, const char *file, int line, const char *name,
                               const char *what)
{
    if (ok) {
        check_passed_count++;
    } else {
        check_failed_count++;
        fprintf(stderr, "FAIL [%s] %s:%d: %s\n", name, file, line, what);
    }
    return ok;
}

static inline int check_long(long long got, long long want, const char *file, int line,
                             const char *name, const char *expr)
{
    if (got == want) {
        return check_record(1, file, line, name, expr);
    }
    char what[512];
    snprintf(what, sizeof what, "%s: got %lld, want %lld", expr, got, want);
    return check_record(0, file, line, name, what);
}

static inline int check_ulong(unsigned long long got, unsigned long long want,
                              const char *file, int line, const char *name, const char *expr)
{
    if (got == want) {
        return check_record(1, file, line, name, expr);
    }
    char what[512];
    snprintf(what, sizeof what, "%s: got %llu, want %llu", expr, got, want);
    return check_record(0, file, line, name, what);
}

static inline int check_str(const char *got, const char *want, const char *file, int line,
                            const char *name, const char *expr)
{
    if (got != NULL && strcmp(got, want) == 0) {
        return check_record(1, file, line, name, expr);
    }
    char what[1024];
    snprintf(what, sizeof what, "%s: got \"%s\", want \"%s\"", expr,
             got ? got : "(NULL)", want);
    return check_record(0, file, line, name, what);
}

static inline int check_contains(const char *haystack, const char *needle, const char *file,
                                 int line, const char *name, const char *expr)
{
    if (haystack != NULL && strstr(haystack, needle) != NULL) {
        return check_record(1, file, line, name, expr);
    }
    char what[1024];
    snprintf(what, sizeof what, "%s: \"%s\" does not contain \"%s\"", expr,
             haystack ? haystack : "(NULL)", needle);
    return check_record(0, file, line, name, what);
}

/* CHECK(name, condition) */
#define CHECK(name, cond) check_record(!!(cond), __FILE__, __LINE__, (name), #cond)
/* CHECK_INT(name, got, want): signed integers (bool, int, ptrdiff_t). */
#define CHECK_INT(name, got, want) \
    check_long((long long)(got), (long long)(want), __FILE__, __LINE__, (name), \
               #got " == " #want)
/* CHECK_SIZE(name, got, want): unsigned integers (size_t). */
#define CHECK_SIZE(name, got, want) \
    check_ulong((unsigned long long)(got), (unsigned long long)(want), __FILE__, __LINE__, \
                (name), #got " == " #want)
/* CHECK_STR(name, got, want): NUL-terminated strings, equal. */
#define CHECK_STR(name, got, want) \
    check_str((got), (want), __FILE__, __LINE__, (name), #got " == " #want)
/* CHECK_CONTAINS(name, haystack, needle): `needle` occurs in `haystack`. */
#define CHECK_CONTAINS(name, haystack, needle) \
    check_contains((haystack), (needle), __FILE__, __LINE__, (name), \
                   #haystack " contains " #needle)

/* Prints the summary line and gives the exit status. */
static inline int check_summary(void)
{
    fflush(stderr);
    printf("%lu passed, %lu failed\n", check_passed_count, check_failed_count);
    fflush(stdout);
    return check_failed_count > 0 ? 1 : 0;
}

/* A copy of `len` bytes in a heap block of exactly `len` bytes, so that
 * valgrind catches a read past the end (NULL for len 0, when
 * `null_if_empty`). Aborts when out of memory. */
static inline char *check_dup_exact(const char *bytes, size_t len, int null_if_empty)
{
    if (len == 0 && null_if_empty) {
        return NULL;
    }
    char *copy = malloc(len ? len : 1);
    if (copy == NULL) {
        fputs("out of memory\n", stderr);
        abort();
    }
    if (len) {
        memcpy(copy, bytes, len);
    }
    return copy;
}

#endif /* CRIO_PIN_CHECK_H */
