/*
 * crio-pin-check: which of a node's images does a pinned_images list pin?
 *
 *   crio-pin-check [--anchor-globs] [--case-sensitive] [--strict]
 *                  (-p PATTERNS_FILE | PATTERN...) [-n NAMES_FILE]
 *
 * Patterns come from the arguments or, with -p, from a file (one per line;
 * blank lines and lines starting with '#' are skipped). Image names come
 * from stdin or, with -n, from a file, one per line. It prints the patterns,
 * numbered, then for each name whether it is pinned and by which pattern
 * (the first in the list that matches, as CRI-O would find it); digests are
 * shortened to 12 hex digits, as crictl shows them. Exit status: 0 on success, 1 when the
 * patterns do not compile, 2 on usage or I/O errors.
 */
#define _POSIX_C_SOURCE 200809L

#include <crio_pin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lines {
    char **items;
    size_t *lengths;
    size_t count, capacity;
};

static int lines_push(struct lines *l, const char *text, size_t length) {
    if (l->count == l->capacity) {
        size_t capacity = l->capacity ? l->capacity * 2 : 64;
        char **items = realloc(l->items, capacity * sizeof *items);
        size_t *lengths = items ? realloc(l->lengths, capacity * sizeof *lengths) : NULL;
        if (!items || !lengths) {
            if (items) l->items = items;
            return -1;
        }
        l->items = items;
        l->lengths = lengths;
        l->capacity = capacity;
    }
    char *copy = malloc(length + 1);
    if (!copy) return -1;
    memcpy(copy, text, length);
    copy[length] = '\0';
    l->items[l->count] = copy;
    l->lengths[l->count] = length;
    l->count++;
    return 0;
}

static void lines_free(struct lines *l) {
    for (size_t i = 0; i < l->count; i++) free(l->items[i]);
    free(l->items);
    free(l->lengths);
}

/* Reads one entry per line (without the newline); skip_comments drops blank
 * lines and lines starting with '#'. */
static int read_lines(FILE *in, struct lines *out, int skip_comments) {
    char *line = NULL;
    size_t size = 0;
    ssize_t got;
    int rc = 0;
    while ((got = getline(&line, &size, in)) != -1) {
        size_t length = (size_t)got;
        if (length > 0 && line[length - 1] == '\n') length--;
        if (skip_comments && (length == 0 || line[0] == '#')) continue;
        if (lines_push(out, line, length) != 0) { rc = -1; break; }
    }
    if (ferror(in)) rc = -1;
    free(line);
    return rc;
}

static int read_file(const char *path, struct lines *out, int skip_comments) {
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); return -1; }
    int rc = read_lines(f, out, skip_comments);
    if (rc != 0) perror(path);
    fclose(f);
    return rc;
}

/* Prints text with each sha256 digest shortened to its first 12 hex digits,
 * as crictl and docker show them, so that a line fits a terminal. */
static void print_shown(const char *text) {
    const char *at = text;
    while ((at = strstr(at, "sha256:")) != NULL) {
        at += strlen("sha256:");
        if (strspn(at, "0123456789abcdef") < 64) continue;
        fwrite(text, 1, (size_t)(at - text) + 12, stdout);
        fputs("...", stdout);
        text = at += 64;
    }
    fputs(text, stdout);
}

static void usage(FILE *to) {
    fprintf(to,
        "usage: crio-pin-check [--anchor-globs] [--case-sensitive] [--strict]\n"
        "                      (-p PATTERNS_FILE | PATTERN...) [-n NAMES_FILE]\n"
        "Prints, for each image name (stdin or NAMES_FILE), whether the patterns pin it.\n");
}

int main(int argc, char **argv) {
    struct lines patterns = {0}, names = {0};
    const char *patterns_file = NULL, *names_file = NULL;
    uint32_t flags = CRIO_PIN_DEFAULT;
    int status = 2;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--anchor-globs") == 0) flags |= CRIO_PIN_ANCHOR_GLOBS;
        else if (strcmp(a, "--case-sensitive") == 0) flags |= CRIO_PIN_CASE_SENSITIVE;
        else if (strcmp(a, "--strict") == 0) flags |= CRIO_PIN_STRICT;
        else if ((strcmp(a, "-p") == 0 || strcmp(a, "-n") == 0) && i + 1 < argc)
            *(a[1] == 'p' ? &patterns_file : &names_file) = argv[++i];
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) { usage(stdout); return 0; }
        else if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++)
                if (lines_push(&patterns, argv[i], strlen(argv[i])) != 0) goto out;
        }
        else if (a[0] == '-' && a[1] != '\0') { usage(stderr); goto out; }
        else if (lines_push(&patterns, a, strlen(a)) != 0) goto out;
    }
    if (patterns_file && read_file(patterns_file, &patterns, 1) != 0) goto out;
    if (patterns.count == 0) {
        fprintf(stderr, "crio-pin-check: no patterns (give them as arguments or with -p FILE)\n");
        usage(stderr);
        goto out;
    }
    if (names_file ? read_file(names_file, &names, 0) != 0 : read_lines(stdin, &names, 0) != 0) {
        if (!names_file) perror("stdin");
        goto out;
    }

    crio_pin_error *error = NULL;
    crio_pin_set *set = crio_pin_compile(patterns.items, patterns.lengths, patterns.count,
                                         flags, &error);
    if (!set) {
        fprintf(stderr, "crio-pin-check: %s\n", crio_pin_error_message(error));
        crio_pin_error_free(error);
        status = 1;
        goto out;
    }

    printf("patterns, in CRI-O's order:\n");
    for (size_t i = 0; i < patterns.count; i++) {
        printf("  #%-3zu ", i);
        print_shown(patterns.items[i]);
        putchar('\n');
    }
    printf("images:\n");
    size_t pinned = 0;
    for (size_t i = 0; i < names.count; i++) {
        ptrdiff_t by = crio_pin_match_index(set, names.items[i], names.lengths[i]);
        if (by == CRIO_PIN_MATCH_FAILED) {
            /* Cannot happen with valid arguments; if it does, keep the
             * image: a garbage collector must never delete it by mistake. */
            pinned++;
            fprintf(stderr, "crio-pin-check: matching %s failed; counting it as pinned\n",
                    names.items[i]);
            printf("  PINNED failed  ");
        } else if (by >= 0) {
            pinned++;
            printf("  PINNED by #%-3td ", by);
        } else {
            printf("  not pinned     ");
        }
        print_shown(names.items[i]);
        putchar('\n');
    }
    printf("\n%zu of %zu images pinned by %zu patterns (libcrio_pin %s)\n", pinned, names.count,
           crio_pin_len(set), crio_pin_version());
    crio_pin_free(set);
    status = 0;
out:
    lines_free(&patterns);
    lines_free(&names);
    return status;
}
