/*
 * test_match.c: the matching semantics of crio-pin through the C API.
 *
 * The cases are the shared table data/semantics.txt (its header defines the
 * format; the Rust and Go suites read it too): each case is compiled from
 * exact-size heap copies of its patterns, with lengths (patterns may hold
 * NUL bytes) and, when no pattern holds a NUL, again NUL-terminated
 * (lengths == NULL); the name is an exact-size heap copy too, so valgrind
 * sees any read past a length (ASan cannot: the library is not
 * instrumented). Each answer is checked through crio_pin_match,
 * crio_pin_match_index, crio_pin_match_any and crio_pin_match_each, and
 * crio_pin_len; a list that must fail must return NULL with an error naming
 * the pattern, and crio_pin_validate must give the same error (a list that
 * compiles, no error).
 *
 * What only C tests stays here: every flag combination through the ABI, and
 * names longer than any stack buffer. The table reader is written in C89
 * style and needs nothing beyond the standard library.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crio_pin.h>

#include "check.h"

#ifndef SEMANTICS_TABLE
#error "build with -DSEMANTICS_TABLE='\"path/to/data/semantics.txt\"' (ctest/Makefile does)"
#endif

#define MAXP 16 /* patterns per case; the reader says so when a case has more */

#define KELVIN "\xE2\x84\xAA" /* U+212A KELVIN SIGN, folds with k K */

/* A decoded string: an exact-size heap block (NULL when empty). */
struct text {
    char *p;
    size_t n;
};

struct tcase {
    unsigned long line;
    char name[80];
    uint32_t flags;
    size_t npats;
    struct text pats[MAXP];
    int must_fail;      /* the list must not compile... */
    size_t fail_index;  /* ...blaming this pattern */
    struct text image;  /* otherwise: the name to match */
    ptrdiff_t index;    /* and the lowest matching index, or -1 */
};

/* ---- the table reader ---------------------------------------------------- */

/* A parse position: the line being read, for error messages. */
struct cursor {
    const char *p, *end;
    unsigned long line;
    const char *line_start;
};

static int parse_error(const struct cursor *c, const char *what)
{
    char msg[256];
    sprintf(msg, "%.40s:%lu: column %lu: %.160s", "semantics.txt", c->line,
            (unsigned long)(c->p - c->line_start) + 1, what);
    return CHECK(msg, 0);
}

static void skip_spaces(struct cursor *c)
{
    while (c->p < c->end && *c->p == ' ') {
        c->p++;
    }
}

/* A bare word (no space, quote or bracket) into buf; 0 when there is none
 * or it does not fit. */
static int word(struct cursor *c, char *buf, size_t size)
{
    size_t n = 0;
    skip_spaces(c);
    while (c->p < c->end && strchr(" []\"", *c->p) == NULL) {
        if (n + 1 >= size) {
            return 0;
        }
        buf[n++] = *c->p++;
    }
    buf[n] = '\0';
    return n > 0;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* Appends the UTF-8 encoding of a Unicode scalar value; 0 if it is none. */
static int put_utf8(unsigned long cp, char *out, size_t *n)
{
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return 0;
    }
    if (cp < 0x80) {
        out[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*n)++] = (char)(0xC0 | (cp >> 6));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out[(*n)++] = (char)(0xE0 | (cp >> 12));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*n)++] = (char)(0xF0 | (cp >> 18));
        out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    }
    return 1;
}

/* A quoted string with its escapes, decoded into an exact-size copy.
 * `scratch` holds at least the rest of the line (decoding never grows). */
static int string(struct cursor *c, char *scratch, struct text *out)
{
    size_t n = 0;
    skip_spaces(c);
    if (c->p >= c->end || *c->p != '"') {
        return parse_error(c, "a string in double quotes expected");
    }
    c->p++;
    for (;;) {
        unsigned char ch;
        if (c->p >= c->end) {
            return parse_error(c, "unterminated string (end it with '\"')");
        }
        ch = (unsigned char)*c->p;
        if (ch == '"') {
            c->p++;
            break;
        }
        if (ch < 0x20 || ch > 0x7E) {
            return parse_error(c, "raw byte in a string: write it as an escape (\\xHH or \\u{H...})");
        }
        if (ch != '\\') {
            scratch[n++] = (char)ch;
            c->p++;
            continue;
        }
        if (c->end - c->p < 2) {
            return parse_error(c, "unterminated escape");
        }
        switch (c->p[1]) {
        case '\\': scratch[n++] = '\\'; c->p += 2; break;
        case '"': scratch[n++] = '"'; c->p += 2; break;
        case 't': scratch[n++] = '\t'; c->p += 2; break;
        case 'n': scratch[n++] = '\n'; c->p += 2; break;
        case 'r': scratch[n++] = '\r'; c->p += 2; break;
        case 'x':
            if (c->end - c->p < 4 || hexval(c->p[2]) < 0 || hexval(c->p[3]) < 0) {
                return parse_error(c, "\\x needs exactly two hex digits");
            }
            scratch[n++] = (char)(hexval(c->p[2]) * 16 + hexval(c->p[3]));
            c->p += 4;
            break;
        case 'u': {
            const char *q = c->p + 2;
            unsigned long cp = 0;
            int digits = 0;
            if (q < c->end && *q == '{') {
                for (q++; q < c->end && hexval(*q) >= 0 && digits < 7; q++, digits++) {
                    cp = cp * 16 + (unsigned long)hexval(*q);
                }
            }
            if (digits < 1 || digits > 6 || q >= c->end || *q != '}' || !put_utf8(cp, scratch, &n)) {
                return parse_error(c, "write \\u{H...} with 1 to 6 hex digits of a Unicode scalar value");
            }
            c->p = q + 1;
            break;
        }
        default:
            return parse_error(c, "unknown escape (use \\\\ \\\" \\t \\n \\r \\xHH \\u{H...})");
        }
    }
    out->n = n;
    out->p = check_dup_exact(scratch, n, 1);
    return 1;
}

static int parse_flags(struct cursor *c, uint32_t *flags)
{
    char buf[64], *part;
    if (!word(c, buf, sizeof buf)) {
        return parse_error(c, "flags expected: default, or +-joined anchor_globs, case_sensitive, strict");
    }
    *flags = CRIO_PIN_DEFAULT;
    if (strcmp(buf, "default") == 0) {
        return 1;
    }
    static const struct {
        const char *name;
        uint32_t bits;
    } names[] = {
        {"anchor_globs", CRIO_PIN_ANCHOR_GLOBS},
        {"case_sensitive", CRIO_PIN_CASE_SENSITIVE},
        {"strict", CRIO_PIN_STRICT},
        {"literal", CRIO_PIN_LITERAL},
        {"cri_dockerd_syntax", CRIO_PIN_CRI_DOCKERD_SYNTAX},
        {"normalize", CRIO_PIN_NORMALIZE},
        {"containerd", CRIO_PIN_CONTAINERD},
        {"containerd_normalized", CRIO_PIN_CONTAINERD_NORMALIZED},
        {"cri_dockerd", CRIO_PIN_CRI_DOCKERD},
    };
    for (part = strtok(buf, "+"); part != NULL; part = strtok(NULL, "+")) {
        size_t i = 0;
        while (i < sizeof names / sizeof names[0] && strcmp(part, names[i].name) != 0) {
            i++;
        }
        if (i == sizeof names / sizeof names[0]) {
            return parse_error(c, "unknown flag (default, or +-joined anchor_globs, case_sensitive, strict, "
                                  "literal, cri_dockerd_syntax, normalize, containerd, containerd_normalized, "
                                  "cri_dockerd)");
        }
        *flags |= names[i].bits;
    }
    return 1;
}

static int parse_index(struct cursor *c, const char *buf, size_t *index)
{
    char *end;
    unsigned long v = strtoul(buf, &end, 10);
    if (*buf < '0' || *buf > '9' || *end != '\0') {
        return parse_error(c, "an index (a decimal number) expected");
    }
    *index = (size_t)v;
    return 1;
}

static void free_case(struct tcase *t)
{
    size_t i;
    for (i = 0; i < t->npats; i++) {
        free(t->pats[i].p);
    }
    free(t->image.p);
    memset(t, 0, sizeof *t);
}

/* One case line into t; 0 (after reporting) when the line is malformed. */
static int parse_case(struct cursor *c, char *scratch, struct tcase *t)
{
    char buf[64];
    size_t i, index;
    memset(t, 0, sizeof *t);
    t->line = c->line;
    if (!word(c, t->name, sizeof t->name) || strspn(t->name, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(t->name)) {
        return parse_error(c, "the case name must be [a-z0-9_]+ (at most 79 characters)");
    }
    if (!parse_flags(c, &t->flags)) {
        return 0;
    }
    skip_spaces(c);
    if (c->p >= c->end || *c->p != '[') {
        return parse_error(c, "the pattern list must follow the flags, in [ ]");
    }
    c->p++;
    for (;;) {
        skip_spaces(c);
        if (c->p < c->end && *c->p == ']') {
            c->p++;
            break;
        }
        if (t->npats == MAXP) {
            return parse_error(c, "more patterns than MAXP in test_match.c: raise it");
        }
        if (!string(c, scratch, &t->pats[t->npats])) {
            return 0;
        }
        t->npats++;
    }
    skip_spaces(c);
    if (c->p < c->end && *c->p == '"') {
        if (!string(c, scratch, &t->image) || !word(c, buf, sizeof buf)) {
            return parse_error(c, "after the name, the index that pins it or none");
        }
        if (strcmp(buf, "none") == 0) {
            t->index = -1;
        } else if (parse_index(c, buf, &index)) {
            t->index = (ptrdiff_t)index;
        } else {
            return 0;
        }
    } else {
        if (!word(c, buf, sizeof buf) || strcmp(buf, "error") != 0 || !word(c, buf, sizeof buf) ||
            !parse_index(c, buf, &t->fail_index) || !word(c, buf, sizeof buf)) {
            return parse_error(c, "after the patterns write \"name\" WANT or error INDEX KIND");
        }
        t->must_fail = 1;
    }
    skip_spaces(c);
    if (c->p != c->end) {
        return parse_error(c, "unexpected text after the case");
    }
    for (i = 0; i < t->npats; i++) {
        if (t->pats[i].p == NULL) {
            /* An empty pattern is still a pointer: (NULL, 0) is tested
             * separately by test_api.c. */
            t->pats[i].p = check_dup_exact("", 0, 0);
        }
    }
    return 1;
}

/* The whole table file in one heap block; NULL (after reporting) if it
 * cannot be read. */
static char *read_table(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    if (f == NULL) {
        fprintf(stderr, "%s: cannot open\n", path);
        return NULL;
    }
    for (;;) {
        size_t got;
        if (*len == cap) {
            char *grown = realloc(buf, cap ? cap * 2 : 65536);
            if (grown == NULL) {
                abort();
            }
            buf = grown;
            cap = cap ? cap * 2 : 65536;
        }
        got = fread(buf + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0) {
            break;
        }
    }
    if (ferror(f)) {
        fprintf(stderr, "%s: read error\n", path);
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* ---- running one case ---------------------------------------------------- */

/* Checks one compiled set against one expectation through every matching
 * function. */
static void check_answers(const char *case_name, const crio_pin_set *set, size_t npats,
                          const char *name, size_t len, int want_match,
                          ptrdiff_t want_index)
{
    CHECK_SIZE(case_name, crio_pin_len(set), npats);
    CHECK_INT(case_name, crio_pin_match(set, name, len), want_match);
    CHECK_INT(case_name, crio_pin_match_index(set, name, len), want_index);
    size_t lengths[1] = {len};
    CHECK_INT(case_name, crio_pin_match_any(set, name, lengths, 1), want_match);
    uint8_t result[1] = {0xAA};
    CHECK_SIZE(case_name, crio_pin_match_each(set, name, lengths, 1, result), (size_t)want_match);
    CHECK_INT(case_name, result[0], want_match);
}

/* A list that must not compile: NULL, an error naming the pattern. */
static void check_failure(const struct tcase *t, const char *const *ptrs, const size_t *lens)
{
    crio_pin_error *err = (crio_pin_error *)&err; /* must be overwritten */
    crio_pin_error *verr = (crio_pin_error *)&verr;
    crio_pin_set *set = crio_pin_compile(ptrs, lens, t->npats, t->flags, &err);
    char prefix[40];
    if (!CHECK(t->name, set == NULL)) {
        crio_pin_free(set);
        return;
    }
    if (!CHECK(t->name, err != NULL && err != (crio_pin_error *)&err)) {
        return;
    }
    CHECK_INT(t->name, crio_pin_error_pattern_index(err), (ptrdiff_t)t->fail_index);
    sprintf(prefix, "pattern %lu ", (unsigned long)t->fail_index);
    CHECK_CONTAINS(t->name, crio_pin_error_message(err), prefix);
    /* crio_pin_validate: false, and the very same error. */
    CHECK(t->name, !crio_pin_validate(ptrs, lens, t->npats, t->flags, &verr));
    if (CHECK(t->name, verr != NULL && verr != (crio_pin_error *)&verr)) {
        CHECK_INT(t->name, crio_pin_error_kind(verr), crio_pin_error_kind(err));
        CHECK_INT(t->name, crio_pin_error_pattern_index(verr), crio_pin_error_pattern_index(err));
        CHECK(t->name, strcmp(crio_pin_error_message(verr), crio_pin_error_message(err)) == 0);
        crio_pin_error_free(verr);
    }
    crio_pin_error_free(err);
}

static void check_compiled(const struct tcase *t, const char *const *ptrs, const size_t *lens)
{
    crio_pin_error *err = (crio_pin_error *)&err; /* must be overwritten */
    crio_pin_set *set = crio_pin_compile(ptrs, lens, t->npats, t->flags, &err);
    int want = t->index >= 0;
    if (!CHECK(t->name, set != NULL)) {
        fprintf(stderr, "  compile error: %s\n", crio_pin_error_message(err));
        crio_pin_error_free(err);
        return;
    }
    CHECK(t->name, err == NULL);
    err = (crio_pin_error *)&err;
    CHECK(t->name, crio_pin_validate(ptrs, lens, t->npats, t->flags, &err) && err == NULL);
    check_answers(t->name, set, t->npats, t->image.p, t->image.n, want, t->index);
    if (t->image.n == 0) {
        /* The empty name as (NULL, 0) and as a non-NULL pointer. */
        check_answers(t->name, set, t->npats, "", 0, want, t->index);
    }
    crio_pin_free(set);
}

static void run_case(const struct tcase *t)
{
    const char *ptrs[MAXP];
    char *cstrs[MAXP];
    size_t lens[MAXP], i;
    int has_nul = 0;
    for (i = 0; i < t->npats; i++) {
        ptrs[i] = t->pats[i].p;
        lens[i] = t->pats[i].n;
        has_nul |= memchr(t->pats[i].p, '\0', t->pats[i].n) != NULL;
    }
    if (t->must_fail) {
        check_failure(t, t->npats ? ptrs : NULL, t->npats ? lens : NULL);
    } else {
        check_compiled(t, t->npats ? ptrs : NULL, t->npats ? lens : NULL);
    }
    if (has_nul) {
        return;
    }
    /* Same patterns, NUL-terminated, lengths == NULL. */
    for (i = 0; i < t->npats; i++) {
        cstrs[i] = malloc(t->pats[i].n + 1);
        if (cstrs[i] == NULL) {
            abort();
        }
        memcpy(cstrs[i], t->pats[i].p, t->pats[i].n);
        cstrs[i][t->pats[i].n] = '\0';
        ptrs[i] = cstrs[i];
    }
    if (t->must_fail) {
        check_failure(t, ptrs, NULL);
    } else {
        check_compiled(t, ptrs, NULL);
    }
    for (i = 0; i < t->npats; i++) {
        free(cstrs[i]);
    }
}

/* Every case of the table; returns how many ran. */
static unsigned long run_table(const char *path)
{
    size_t len;
    char *text = read_table(path, &len), *scratch;
    const char *next = text;
    struct cursor c;
    unsigned long cases = 0;
    if (!CHECK(path, text != NULL)) {
        return 0;
    }
    scratch = check_dup_exact(text, len, 0);
    c.line = 0;
    while (next < text + len) {
        struct tcase t;
        const char *nl = memchr(next, '\n', (size_t)(text + len - next));
        c.line_start = c.p = next;
        c.end = nl ? nl : text + len;
        next = c.end + 1;
        c.line++;
        skip_spaces(&c);
        if (c.p == c.end || *c.p == '#') {
            continue;
        }
        if (parse_case(&c, scratch, &t)) {
            run_case(&t);
            cases++;
        }
        free_case(&t);
    }
    free(scratch);
    free(text);
    return cases;
}

/* Every flag combination on one glob: each flag does exactly its own job. */
static void flag_matrix(void)
{
    static const struct {
        const char *text;
        int at_start;   /* the prefix is at the start of the name */
        int same_case;  /* the prefix appears in the pattern's case */
    } names[] = {
        {"quay.io/x", 1, 1},
        {"QUAY.IO/x", 1, 0},
        {"evil/quay.io/x", 0, 1},
        {"EVIL/QUAY.IO/X", 0, 0},
    };
    const char *pattern = "quay.io/*";
    for (uint32_t flags = 0; flags < 8; flags++) {
        crio_pin_error *err = NULL;
        crio_pin_set *set = crio_pin_compile(&pattern, NULL, 1, flags, &err);
        char case_name[96];
        snprintf(case_name, sizeof case_name, "flag_matrix flags=%u compile", (unsigned)flags);
        if (!CHECK(case_name, set != NULL && err == NULL)) {
            crio_pin_error_free(err);
            continue;
        }
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            int want = (names[i].at_start || !(flags & CRIO_PIN_ANCHOR_GLOBS)) &&
                       (names[i].same_case || !(flags & CRIO_PIN_CASE_SENSITIVE));
            snprintf(case_name, sizeof case_name, "flag_matrix flags=%u name=%s",
                     (unsigned)flags, names[i].text);
            check_answers(case_name, set, 1, names[i].text, strlen(names[i].text), want,
                          want ? 0 : -1);
        }
        crio_pin_free(set);
    }
}

/* Names longer than any stack buffer, and at its likely sizes. */
static void long_names(void)
{
    static const size_t sizes[] = {1, 255, 256, 511, 512, 513, 1024, 4097, 70000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        char *lower = malloc(n + 1), *upper = malloc(n + 1);
        if (lower == NULL || upper == NULL) {
            abort();
        }
        for (size_t i = 0; i < n; i++) {
            lower[i] = (char)('a' + i % 26);
            upper[i] = (char)('A' + i % 26);
        }
        lower[n] = upper[n] = '\0';
        char case_name[96];
        const char *pats[1] = {lower};

        crio_pin_set *exact = crio_pin_compile(pats, NULL, 1, CRIO_PIN_DEFAULT, NULL);
        crio_pin_set *cs = crio_pin_compile(pats, NULL, 1, CRIO_PIN_CASE_SENSITIVE, NULL);
        snprintf(case_name, sizeof case_name, "long_name_exact_fold len=%zu", n);
        check_answers(case_name, exact, 1, upper, n, 1, 0);
        snprintf(case_name, sizeof case_name, "long_name_exact_one_shorter len=%zu", n);
        check_answers(case_name, exact, 1, upper, n - 1, 0, -1);
        snprintf(case_name, sizeof case_name, "long_name_case_sensitive len=%zu", n);
        check_answers(case_name, cs, 1, upper, n, 0, -1);
        check_answers(case_name, cs, 1, lower, n, 1, 0);
        crio_pin_free(exact);
        crio_pin_free(cs);

        /* A keyword found at the very end of a long name, through a KELVIN
         * sign (non-ASCII: the slow path) and through ASCII. */
        const char *kw[2] = {"*zz-k8s*", "*zz-K8S-end*"};
        crio_pin_set *set = crio_pin_compile(kw, NULL, 2, CRIO_PIN_DEFAULT, NULL);
        char *name = malloc(n + 16);
        if (name == NULL) {
            abort();
        }
        memcpy(name, lower, n);
        memcpy(name + n, "ZZ-" KELVIN "8S", 8);
        snprintf(case_name, sizeof case_name, "long_name_keyword_kelvin_at_end len=%zu", n);
        check_answers(case_name, set, 2, name, n + 8, 1, 0);
        memcpy(name + n, "zz-k8s-END", 10);
        snprintf(case_name, sizeof case_name, "long_name_keyword_ascii_at_end len=%zu", n);
        check_answers(case_name, set, 2, name, n + 10, 1, 0);
        memcpy(name + n, "zz-k8-END", 9);
        snprintf(case_name, sizeof case_name, "long_name_keyword_miss len=%zu", n);
        check_answers(case_name, set, 2, name, n + 9, 0, -1);
        crio_pin_free(set);
        free(name);
        free(lower);
        free(upper);
    }
}

int main(void)
{
    unsigned long cases = run_table(SEMANTICS_TABLE);
    /* An empty or unreadable table must not pass as a success. */
    CHECK(SEMANTICS_TABLE, cases > 0);
    flag_matrix();
    long_names();
    printf("test_match: %lu cases from %s\n", cases, SEMANTICS_TABLE);
    return check_summary();
}
