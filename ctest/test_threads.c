/*
 * test_threads.c: one compiled set shared by many threads.
 *
 * 1. The expected answers are the library's own, single-threaded, before
 *    any thread starts. No classifier is written here: what a pattern
 *    means is checked against the shared table data/semantics.txt by
 *    test_match.c (and by the Rust and Go suites). This test cross-checks
 *    only how a list's answer is made of its patterns' answers, under
 *    every non-strict flag combination: the lowest index a whole list
 *    gives must be the first pattern that, compiled alone, matches
 *    (CRI-O's loop over its regexps).
 * 2. Phase "shared": 8 threads match all names concurrently on two shared
 *    sets (crio_pin_match, crio_pin_match_index, crio_pin_match_each), while
 *    4 more threads clone and free their own owners of the same sets.
 * 3. Phase "handover": every thread gets its own owner (a clone), the main
 *    thread frees the original while they run, and each thread frees its
 *    owner when done: the last one, whichever it is, frees the set.
 *
 * Threads count their mismatches; the main thread checks the totals after
 * joining (check.h is not thread-safe).
 */
#include <ctype.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crio_pin.h>

#include "check.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

enum {
    NNAMES = 400,
    MATCHERS = 8,
    CLONERS = 4,
    ROUNDS = 20,
    CLONE_ITERATIONS = 10000,
    MAX_NAME = 96,
};

/* ASCII patterns, CRI-O quirks included (no STRICT: `*pause`, `a*b`). */
static const char *const patterns[] = {
    "registry.k8s.io/pause:3.9",         /* 0 exact */
    "quay.io/openshift/*",               /* 1 glob */
    "*etcd*",                            /* 2 keyword */
    "docker.io/library/nginx:latest",    /* 3 exact */
    "gcr.io/*",                          /* 4 glob */
    "*coredns*",                         /* 5 keyword */
    "*pause",                            /* 6 exact with a literal star */
    "localhost:5000/app/web:v1.2.3",     /* 7 exact */
    "REGISTRY.K8S.IO/*",                 /* 8 glob, upper case */
    "*ETCD*",                            /* 9 duplicate of 2 but for case */
    "ghcr.io/busybox:latest",            /* 10 exact */
    "mirror.local/kube-apiserver*",      /* 11 glob */
    "a*b",                               /* 12 exact with a literal star */
    "*sha256:abcd*",                     /* 13 keyword */
    "docker.io/library/nginx:latest",    /* 14 duplicate of 3 */
    "quay.io/*",                         /* 15 glob, prefix of 1 */
    "Docker.io/Library/Busybox:V1.2.3",  /* 16 exact, mixed case */
    "*:1.0-*",                           /* 17 keyword */
};
#define NPATS COUNT(patterns)

/* ------------------------------------------------------------ the names */

static char names[NNAMES][MAX_NAME];
static size_t name_len[NNAMES];
static char *packed;          /* all names back to back, exact size */
static size_t packed_len[NNAMES];

static uint32_t rng_state = 12345u;
static uint32_t rng(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 16) & 0x7fffu;
}

static void make_names(void)
{
    static const char *const registries[] = {
        "quay.io", "registry.k8s.io", "docker.io", "gcr.io", "ghcr.io", "localhost:5000",
        "evil.example/quay.io", "mirror.local", "x.gcr.io", "quay.io/openshift",
    };
    static const char *const repos[] = {
        "pause", "etcd", "coredns/coredns", "library/nginx", "openshift/release",
        "kube-apiserver", "busybox", "app/web", "library/busybox", "*pause", "a*b",
    };
    static const char *const tags[] = {
        ":3.9", ":v1.2.3", ":latest", "@sha256:abcd01", "", ":1.0-etcd", ":1.0-rc",
    };
    /* A few names equal to patterns, so exact patterns hit. */
    static const char *const fixed[] = {
        "registry.k8s.io/pause:3.9", "REGISTRY.K8S.IO/PAUSE:3.9", "*pause", "*PAUSE", "a*b",
        "docker.io/library/nginx:latest", "localhost:5000/app/web:v1.2.3",
        "ghcr.io/busybox:latest", "docker.io/library/busybox:v1.2.3", "pause", "", "axb",
    };
    size_t total = 0;
    for (size_t i = 0; i < NNAMES; i++) {
        if (i < COUNT(fixed)) {
            snprintf(names[i], MAX_NAME, "%s", fixed[i]);
        } else {
            snprintf(names[i], MAX_NAME, "%s/%s%s", registries[rng() % COUNT(registries)],
                     repos[rng() % COUNT(repos)], tags[rng() % COUNT(tags)]);
            /* Change the case of some letters. */
            for (char *c = names[i]; *c; c++) {
                if (rng() % 8 == 0) {
                    *c = (char)(islower((unsigned char)*c) ? toupper((unsigned char)*c)
                                                          : tolower((unsigned char)*c));
                }
            }
        }
        name_len[i] = strlen(names[i]);
        packed_len[i] = name_len[i];
        total += name_len[i];
    }
    packed = malloc(total);
    if (packed == NULL) {
        abort();
    }
    size_t at = 0;
    for (size_t i = 0; i < NNAMES; i++) {
        memcpy(packed + at, names[i], name_len[i]);
        at += name_len[i];
    }
}

/* ----------------------------------------------------------- the threads */

/* The two sets every phase-2 thread uses, and their expected answers. */
enum { NSETS = 2 };
static const uint32_t set_flags[NSETS] = {
    CRIO_PIN_DEFAULT, CRIO_PIN_ANCHOR_GLOBS | CRIO_PIN_CASE_SENSITIVE,
};
static ptrdiff_t expected[NSETS][NNAMES];
static size_t expected_pinned[NSETS];

static pthread_barrier_t start;

struct matcher {
    crio_pin_set *sets[NSETS]; /* shared (phase 2) or owned (phase 3) */
    int owns;                  /* phase 3: free the sets when done */
    int id;
    unsigned long calls;
    unsigned long mismatches;
    char first_mismatch[256];
};

static void mismatch(struct matcher *m, const char *what, size_t name)
{
    if (m->mismatches++ == 0) {
        snprintf(m->first_mismatch, sizeof m->first_mismatch, "%.40s on name %zu \"%.96s\"", what,
                 name, names[name]);
    }
}

static void *match_thread(void *arg)
{
    struct matcher *m = arg;
    uint8_t *results = malloc(NNAMES);
    if (results == NULL) {
        abort();
    }
    pthread_barrier_wait(&start);
    for (int round = 0; round < ROUNDS; round++) {
        for (size_t k = 0; k < NNAMES; k++) {
            /* Each thread walks the names from its own offset and stride. */
            size_t i = (k * 7 + (size_t)m->id * 53 + (size_t)round * 11) % NNAMES;
            for (int s = 0; s < NSETS; s++) {
                ptrdiff_t want = expected[s][i];
                if (crio_pin_match(m->sets[s], names[i], name_len[i]) != (want >= 0)) {
                    mismatch(m, "crio_pin_match", i);
                }
                if (crio_pin_match_index(m->sets[s], names[i], name_len[i]) != want) {
                    mismatch(m, "crio_pin_match_index", i);
                }
                m->calls += 2;
            }
        }
        for (int s = 0; s < NSETS; s++) {
            memset(results, 0xAA, NNAMES);
            size_t pinned = crio_pin_match_each(m->sets[s], packed, packed_len, NNAMES, results);
            if (pinned != expected_pinned[s]) {
                mismatch(m, "crio_pin_match_each count", 0);
            }
            for (size_t i = 0; i < NNAMES; i++) {
                if (results[i] != (expected[s][i] >= 0)) {
                    mismatch(m, "crio_pin_match_each result", i);
                }
            }
            if (!crio_pin_match_any(m->sets[s], packed, packed_len, NNAMES)) {
                mismatch(m, "crio_pin_match_any", 0);
            }
            m->calls += 2;
        }
        /* An owner may clone its set at any time; free the clone at once. */
        if (m->owns) {
            for (int s = 0; s < NSETS; s++) {
                crio_pin_set *c = crio_pin_clone(m->sets[s]);
                if (c != m->sets[s] || crio_pin_len(c) != NPATS) {
                    mismatch(m, "crio_pin_clone of own owner", 0);
                }
                crio_pin_free(c);
                m->calls += 2;
            }
        }
    }
    if (m->owns) {
        for (int s = 0; s < NSETS; s++) {
            crio_pin_free(m->sets[s]); /* maybe the last owner: frees the set */
            m->sets[s] = NULL;
        }
    }
    free(results);
    return NULL;
}

struct cloner {
    crio_pin_set *shared[NSETS];
    int id;
    unsigned long clones;
    unsigned long mismatches;
    char first_mismatch[256];
};

static void *clone_thread(void *arg)
{
    struct cloner *c = arg;
    enum { HOLD = 16 };
    crio_pin_set *held[HOLD];
    int nheld = 0;
    pthread_barrier_wait(&start);
    for (int it = 0; it < CLONE_ITERATIONS; it++) {
        int s = (it + c->id) % NSETS;
        crio_pin_set *own = crio_pin_clone(c->shared[s]);
        c->clones++;
        size_t i = ((size_t)it * 13 + (size_t)c->id) % NNAMES;
        if (own != c->shared[s] || crio_pin_len(own) != NPATS ||
            crio_pin_match_index(own, names[i], name_len[i]) != expected[s][i]) {
            if (c->mismatches++ == 0) {
                snprintf(c->first_mismatch, sizeof c->first_mismatch,
                         "clone %d of set %d, name %zu \"%.96s\"", it, s, i, names[i]);
            }
        }
        held[nheld++] = own;
        if (nheld == HOLD) {
            /* Free the held owners, alternately oldest first and newest first. */
            for (int k = 0; k < HOLD; k++) {
                crio_pin_free(held[(it / HOLD) % 2 ? k : HOLD - 1 - k]);
            }
            nheld = 0;
        }
    }
    for (int k = 0; k < nheld; k++) {
        crio_pin_free(held[k]);
    }
    return NULL;
}

static crio_pin_set *compile_set(uint32_t flags)
{
    crio_pin_error *err = NULL;
    crio_pin_set *set = crio_pin_compile(patterns, NULL, NPATS, flags, &err);
    if (set == NULL) {
        fprintf(stderr, "compile failed: %s\n", crio_pin_error_message(err));
        crio_pin_error_free(err);
    }
    return set;
}

/* CRI-O's loop, each regexp answered by the library: the index of the first
 * pattern whose set of one (singles[i]) matches the name, or -1. */
static ptrdiff_t loop_index(crio_pin_set *const singles[NPATS], size_t name)
{
    for (size_t i = 0; i < NPATS; i++) {
        if (crio_pin_match(singles[i], names[name], name_len[name])) {
            return (ptrdiff_t)i;
        }
    }
    return -1;
}

/* Single-threaded, under every non-strict flag combination: each pattern
 * alone, then the whole list, agree on every name. Records the expected
 * answers of the sets the threads use. */
static void check_expected(void)
{
    for (uint32_t flags = 0; flags < 4; flags++) {
        char case_name[256];
        crio_pin_set *singles[NPATS];
        size_t compiled = 0;
        for (; compiled < NPATS; compiled++) {
            crio_pin_error *err = NULL;
            singles[compiled] = crio_pin_compile(&patterns[compiled], NULL, 1, flags, &err);
            if (singles[compiled] == NULL) {
                fprintf(stderr, "compile failed: %s\n", crio_pin_error_message(err));
                crio_pin_error_free(err);
                break;
            }
        }
        crio_pin_set *set = compile_set(flags);
        snprintf(case_name, sizeof case_name, "expected compile flags=%u", (unsigned)flags);
        if (CHECK(case_name, set != NULL && compiled == NPATS)) {
            size_t pinned = 0;
            for (size_t i = 0; i < NNAMES; i++) {
                ptrdiff_t want = loop_index(singles, i);
                pinned += want >= 0;
                snprintf(case_name, sizeof case_name,
                         "list = loop over single patterns flags=%u name=\"%.96s\"", (unsigned)flags,
                         names[i]);
                CHECK_INT(case_name, crio_pin_match_index(set, names[i], name_len[i]), want);
                CHECK_INT(case_name, crio_pin_match(set, names[i], name_len[i]), want >= 0);
            }
            /* The names are a real mix of pinned and not pinned. */
            snprintf(case_name, sizeof case_name, "expected_mix flags=%u pinned=%zu", (unsigned)flags,
                     pinned);
            CHECK(case_name, pinned >= NNAMES / 10 && pinned <= NNAMES * 9 / 10);
            for (int s = 0; s < NSETS; s++) {
                if (set_flags[s] != flags) {
                    continue;
                }
                expected_pinned[s] = 0;
                for (size_t i = 0; i < NNAMES; i++) {
                    expected[s][i] = crio_pin_match_index(set, names[i], name_len[i]);
                    expected_pinned[s] += expected[s][i] >= 0;
                }
            }
        }
        crio_pin_free(set);
        while (compiled-- > 0) {
            crio_pin_free(singles[compiled]);
        }
    }
    /* Every pattern is the first match of at least one name, in the default
     * set (so the index checks exercise them all), except duplicates. */
    int seen[NPATS] = {0};
    for (size_t i = 0; i < NNAMES; i++) {
        if (expected[0][i] >= 0) {
            seen[expected[0][i]] = 1;
        }
    }
    for (size_t p = 0; p < NPATS; p++) {
        char case_name[160];
        snprintf(case_name, sizeof case_name, "expected_covers pattern %zu \"%.96s\"", p,
                 patterns[p]);
        int duplicate = p == 9 || p == 14; /* later copies of 2 and 3 */
        CHECK_INT(case_name, seen[p], !duplicate);
    }
}

/* Compiles one set per entry of set_flags; on failure frees those already
 * compiled and returns 0. */
static int compile_sets(crio_pin_set *sets[NSETS], const char *case_name)
{
    for (int s = 0; s < NSETS; s++) {
        sets[s] = compile_set(set_flags[s]);
        if (!CHECK(case_name, sets[s] != NULL)) {
            while (s-- > 0) {
                crio_pin_free(sets[s]);
            }
            return 0;
        }
    }
    return 1;
}

/* Phase 2: 8 matchers on shared sets, 4 cloners of the same sets. */
static void phase_shared(void)
{
    crio_pin_set *sets[NSETS];
    if (!compile_sets(sets, "shared compile")) {
        return;
    }
    struct matcher m[MATCHERS];
    struct cloner c[CLONERS];
    pthread_t tm[MATCHERS], tc[CLONERS];
    CHECK_INT("shared barrier init",
              pthread_barrier_init(&start, NULL, MATCHERS + CLONERS), 0);
    for (int t = 0; t < MATCHERS; t++) {
        memset(&m[t], 0, sizeof m[t]);
        m[t].id = t;
        for (int s = 0; s < NSETS; s++) {
            m[t].sets[s] = sets[s];
        }
        CHECK_INT("shared matcher create", pthread_create(&tm[t], NULL, match_thread, &m[t]), 0);
    }
    for (int t = 0; t < CLONERS; t++) {
        memset(&c[t], 0, sizeof c[t]);
        c[t].id = t;
        for (int s = 0; s < NSETS; s++) {
            c[t].shared[s] = sets[s];
        }
        CHECK_INT("shared cloner create", pthread_create(&tc[t], NULL, clone_thread, &c[t]), 0);
    }
    for (int t = 0; t < MATCHERS; t++) {
        CHECK_INT("shared matcher join", pthread_join(tm[t], NULL), 0);
    }
    for (int t = 0; t < CLONERS; t++) {
        CHECK_INT("shared cloner join", pthread_join(tc[t], NULL), 0);
    }
    pthread_barrier_destroy(&start);
    unsigned long want_calls = (unsigned long)ROUNDS * (NNAMES * NSETS * 2 + NSETS * 2);
    for (int t = 0; t < MATCHERS; t++) {
        char case_name[64];
        snprintf(case_name, sizeof case_name, "shared matcher thread %d", t);
        if (!CHECK_SIZE(case_name, m[t].mismatches, 0)) {
            fprintf(stderr, "  first mismatch: %s\n", m[t].first_mismatch);
        }
        CHECK_SIZE(case_name, m[t].calls, want_calls);
    }
    for (int t = 0; t < CLONERS; t++) {
        char case_name[64];
        snprintf(case_name, sizeof case_name, "shared cloner thread %d", t);
        if (!CHECK_SIZE(case_name, c[t].mismatches, 0)) {
            fprintf(stderr, "  first mismatch: %s\n", c[t].first_mismatch);
        }
        CHECK_SIZE(case_name, c[t].clones, CLONE_ITERATIONS);
    }
    /* The sets survived every clone/free and still answer. */
    for (int s = 0; s < NSETS; s++) {
        CHECK_SIZE("shared set alive after threads", crio_pin_len(sets[s]), NPATS);
        CHECK_INT("shared set answers after threads",
                  crio_pin_match_index(sets[s], names[0], name_len[0]), expected[s][0]);
        crio_pin_free(sets[s]);
    }
}

/* Phase 3: each thread owns a clone; the original is freed while they run;
 * the last thread to finish frees the set. */
static void phase_handover(void)
{
    crio_pin_set *sets[NSETS];
    if (!compile_sets(sets, "handover compile")) {
        return;
    }
    struct matcher m[MATCHERS];
    pthread_t tm[MATCHERS];
    /* The main thread joins the barrier too, so that it frees the
     * originals while the matchers run. */
    CHECK_INT("handover barrier init", pthread_barrier_init(&start, NULL, MATCHERS + 1), 0);
    for (int t = 0; t < MATCHERS; t++) {
        memset(&m[t], 0, sizeof m[t]);
        m[t].id = t;
        m[t].owns = 1;
        for (int s = 0; s < NSETS; s++) {
            m[t].sets[s] = crio_pin_clone(sets[s]);
            CHECK("handover clone is the same set", m[t].sets[s] == sets[s]);
        }
        CHECK_INT("handover thread create", pthread_create(&tm[t], NULL, match_thread, &m[t]), 0);
    }
    pthread_barrier_wait(&start);
    for (int s = 0; s < NSETS; s++) {
        crio_pin_free(sets[s]); /* the threads' owners keep the sets alive */
    }
    for (int t = 0; t < MATCHERS; t++) {
        CHECK_INT("handover thread join", pthread_join(tm[t], NULL), 0);
    }
    pthread_barrier_destroy(&start);
    unsigned long want_calls =
        (unsigned long)ROUNDS * (NNAMES * NSETS * 2 + NSETS * 2 + NSETS * 2);
    for (int t = 0; t < MATCHERS; t++) {
        char case_name[64];
        snprintf(case_name, sizeof case_name, "handover matcher thread %d", t);
        if (!CHECK_SIZE(case_name, m[t].mismatches, 0)) {
            fprintf(stderr, "  first mismatch: %s\n", m[t].first_mismatch);
        }
        CHECK_SIZE(case_name, m[t].calls, want_calls);
        CHECK(case_name, m[t].sets[0] == NULL && m[t].sets[1] == NULL);
    }
    /* Nothing left to free: valgrind / ASan report a leak otherwise. */
}

int main(void)
{
    make_names();
    check_expected();
    phase_shared();
    phase_handover();
    free(packed);
    return check_summary();
}
