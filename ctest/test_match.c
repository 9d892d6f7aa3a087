/*
 * test_match.c: the matching semantics of crio-pin, one named table row per
 * case: {name, patterns, flags, image name, expected match, expected index}.
 *
 * Every row is compiled from exact-size heap copies of its patterns (with
 * lengths, so patterns may hold NUL bytes) and, when no pattern holds a NUL,
 * a second time from NUL-terminated copies (lengths == NULL); the name is an
 * exact-size heap copy too, so valgrind sees any read past a length (ASan
 * cannot: the library itself is not instrumented).
 * Each row is then checked through every matching function:
 * crio_pin_match, crio_pin_match_index, crio_pin_match_any and
 * crio_pin_match_each (one name), and crio_pin_len.
 *
 * The expected values are CRI-O's: every row was also checked against Go's
 * regexp package running the regexps CRI-O builds ((?i) + QuoteMeta, with
 * `^`/`$` for exact patterns; no (?i) for CASE_SENSITIVE, a `^` before a
 * glob for ANCHOR_GLOBS), which agreed on all of them.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crio_pin.h>

#include "check.h"

typedef struct {
    const char *p; /* NULL ends a pattern list */
    size_t n;
} bytes;

#define B(s) { s, sizeof(s) - 1 }
#define END { NULL, 0 }
#define MAXP 8
#define NONE { END } /* no patterns: the empty set */

/* Flags, short. */
#define D CRIO_PIN_DEFAULT
#define A CRIO_PIN_ANCHOR_GLOBS
#define C CRIO_PIN_CASE_SENSITIVE
#define S CRIO_PIN_STRICT

/* UTF-8 spellings (kept as separate literals: a hex escape followed by a
 * hex digit would swallow it). */
#define KELVIN "\xE2\x84\xAA"  /* U+212A KELVIN SIGN, folds with k K */
#define LONG_S "\xC5\xBF"      /* U+017F LATIN SMALL LETTER LONG S, folds with s S */
#define E_ACUTE "\xC3\xA9"     /* é */
#define E_ACUTE_UP "\xC3\x89"  /* É */
#define FFFD "\xEF\xBF\xBD"    /* U+FFFD REPLACEMENT CHARACTER */
#define SIGMA_UP "\xCE\xA3"    /* Σ */
#define SIGMA "\xCF\x83"       /* σ */
#define SIGMA_FINAL "\xCF\x82" /* ς */
#define SHARP_S "\xC3\x9F"     /* ß */
#define SHARP_S_UP "\xE1\xBA\x9E" /* ẞ U+1E9E */
#define DZ_UP "\xC7\x84"       /* Ǆ U+01C4 */
#define DZ_TITLE "\xC7\x85"    /* ǅ U+01C5 */
#define DZ "\xC7\x86"          /* ǆ U+01C6 */
#define EURO "\xE2\x82\xAC"    /* € */

struct row {
    const char *name;
    bytes pats[MAXP];
    uint32_t flags;
    bytes image;
    int match;
    ptrdiff_t index;
};

static const struct row rows[] = {
    /* ---- exact patterns: the whole name, case-insensitive ---- */
    {"exact_equal", {B("registry.k8s.io/pause:3.9")}, D, B("registry.k8s.io/pause:3.9"), 1, 0},
    {"exact_case_insensitive", {B("registry.k8s.io/pause:3.9")}, D, B("REGISTRY.K8S.IO/Pause:3.9"), 1, 0},
    {"exact_pattern_upper_name_lower", {B("QUAY.IO/X")}, D, B("quay.io/x"), 1, 0},
    {"exact_not_a_prefix_match", {B("registry.k8s.io/pause:3.9")}, D, B("registry.k8s.io/pause:3.9.1"), 0, -1},
    {"exact_not_a_substring_match", {B("registry.k8s.io/pause:3.9")}, D, B("x/registry.k8s.io/pause:3.9"), 0, -1},
    {"exact_name_shorter", {B("registry.k8s.io/pause:3.9")}, D, B("registry.k8s.io/pause:3"), 0, -1},
    {"exact_digest", {B("quay.io/a@sha256:0123abcd")}, D, B("quay.io/a@SHA256:0123ABCD"), 1, 0},

    /* ---- globs `prefix*`: a substring test, NOT anchored (CRI-O) ---- */
    {"glob_prefix", {B("quay.io/*")}, D, B("quay.io/openshift/x:1"), 1, 0},
    {"glob_not_anchored", {B("quay.io/*")}, D, B("evil.example/quay.io/x"), 1, 0},
    {"glob_prefix_at_end", {B("quay.io/*")}, D, B("xquay.io/"), 1, 0},
    {"glob_bare_prefix", {B("quay.io/*")}, D, B("quay.io/"), 1, 0},
    {"glob_case_insensitive", {B("quay.io/*")}, D, B("QUAY.IO/X"), 1, 0},
    {"glob_miss", {B("quay.io/*")}, D, B("quay.com/x"), 0, -1},
    {"glob_name_shorter_than_prefix", {B("quay.io/*")}, D, B("quay.io"), 0, -1},
    {"glob_empty_name", {B("a*")}, D, B(""), 0, -1},
    {"glob_dot_star_is_literal_dot_miss", {B(".*")}, D, B("abc"), 0, -1},
    {"glob_dot_star_is_literal_dot_hit", {B(".*")}, D, B("a.b"), 1, 0},

    /* ---- keywords `*word*`: a substring test ---- */
    {"keyword_inside", {B("*pause*")}, D, B("registry.k8s.io/pause:3.9"), 1, 0},
    {"keyword_whole_name", {B("*pause*")}, D, B("pause"), 1, 0},
    {"keyword_case_insensitive", {B("*pause*")}, D, B("X/PAUSE"), 1, 0},
    {"keyword_miss", {B("*pause*")}, D, B("paus"), 0, -1},
    {"keyword_empty_name", {B("*pause*")}, D, B(""), 0, -1},
    {"keyword_dot_literal_miss", {B("*.*")}, D, B("abc"), 0, -1},
    {"keyword_dot_literal_hit", {B("*.*")}, D, B("a.b"), 1, 0},

    /* ---- star quirks ---- */
    {"starstar_pins_a_name", {B("**")}, D, B("docker.io/library/nginx"), 1, 0},
    {"starstar_pins_the_empty_name", {B("**")}, D, B(""), 1, 0},
    {"starstar_pins_invalid_utf8", {B("**")}, D, B("\xFF\xFE"), 1, 0},
    {"starstar_pins_a_nul", {B("**")}, D, B("\0"), 1, 0},
    {"starstar_pins_a_newline", {B("**")}, D, B("\n"), 1, 0},
    {"three_stars_keyword_star_hit", {B("***")}, D, B("a*b"), 1, 0},
    {"three_stars_keyword_star_lone", {B("***")}, D, B("*"), 1, 0},
    {"three_stars_keyword_star_miss", {B("***")}, D, B("ab"), 0, -1},
    {"three_stars_empty_name", {B("***")}, D, B(""), 0, -1},
    {"four_stars_keyword_two_stars_hit", {B("****")}, D, B("a**b"), 1, 0},
    {"four_stars_keyword_two_stars_miss", {B("****")}, D, B("a*b"), 0, -1},
    {"leading_star_is_exact_hit", {B("*pause")}, D, B("*pause"), 1, 0},
    {"leading_star_is_exact_case", {B("*pause")}, D, B("*PAUSE"), 1, 0},
    {"leading_star_is_exact_not_suffix", {B("*pause")}, D, B("registry.k8s.io/pause"), 0, -1},
    {"leading_star_is_exact_not_bare", {B("*pause")}, D, B("pause"), 0, -1},
    {"leading_star_is_exact_not_inside", {B("*pause")}, D, B("x*pause"), 0, -1},
    {"inner_star_is_exact_hit", {B("a*b")}, D, B("a*b"), 1, 0},
    {"inner_star_is_exact_case", {B("a*b")}, D, B("A*B"), 1, 0},
    {"inner_star_not_wildcard", {B("a*b")}, D, B("axb"), 0, -1},
    {"inner_star_not_empty", {B("a*b")}, D, B("ab"), 0, -1},
    {"double_trailing_star_glob_hit", {B("a**")}, D, B("xa*y"), 1, 0},
    {"double_trailing_star_glob_exact", {B("a**")}, D, B("a*"), 1, 0},
    {"double_trailing_star_glob_miss", {B("a**")}, D, B("ab"), 0, -1},
    {"leading_double_star_exact_hit", {B("**a")}, D, B("**a"), 1, 0},
    {"leading_double_star_exact_miss", {B("**a")}, D, B("a"), 0, -1},
    {"leading_double_star_exact_not_suffix", {B("**a")}, D, B("xa"), 0, -1},
    {"star_nul_is_exact", {B("*\0")}, D, B("*\0"), 1, 0},
    {"star_nul_is_exact_miss", {B("*\0")}, D, B("\0"), 0, -1},

    /* ---- the empty pattern and the empty set ---- */
    {"empty_pattern_matches_empty_name", {B("")}, D, B(""), 1, 0},
    {"empty_pattern_only_empty_name", {B("")}, D, B("a"), 0, -1},
    {"empty_pattern_not_a_nul", {B("")}, D, B("\0"), 0, -1},
    {"empty_set_empty_name", NONE, D, B(""), 0, -1},
    {"empty_set_name", NONE, D, B("quay.io/x"), 0, -1},
    {"empty_set_all_flags", NONE, A | C | S, B("x"), 0, -1},

    /* ---- regexp metacharacters are literal ---- */
    {"meta_dot_not_any_char", {B("a.b")}, D, B("axb"), 0, -1},
    {"meta_dot_literal", {B("a.b")}, D, B("A.B"), 1, 0},
    {"meta_caret_glob_hit", {B("^quay*")}, D, B("x^quayy"), 1, 0},
    {"meta_caret_glob_miss", {B("^quay*")}, D, B("quay"), 0, -1},
    {"meta_dollar_exact_hit", {B("quay.io$")}, D, B("quay.io$"), 1, 0},
    {"meta_dollar_exact_miss", {B("quay.io$")}, D, B("quay.io"), 0, -1},
    {"meta_dollar_glob", {B("$*")}, D, B("a$b"), 1, 0},
    {"meta_paren_pipe_literal", {B("(a|b)")}, D, B("(A|B)"), 1, 0},
    {"meta_paren_pipe_not_group", {B("(a|b)")}, D, B("a"), 0, -1},
    {"meta_bracket_literal", {B("[abc]")}, D, B("[ABC]"), 1, 0},
    {"meta_bracket_not_class", {B("[abc]")}, D, B("a"), 0, -1},
    {"meta_backslash_literal", {B("a\\b")}, D, B("a\\b"), 1, 0},
    {"meta_backslash_not_escape", {B("a\\b")}, D, B("ab"), 0, -1},
    {"meta_backslash_d_not_digit", {B("a\\d")}, D, B("a1"), 0, -1},
    {"meta_backslash_Q_glob", {B("\\Q*")}, D, B("x\\qy"), 1, 0},
    {"meta_plus_not_repeat", {B("a+")}, D, B("aa"), 0, -1},
    {"meta_plus_literal", {B("a+")}, D, B("a+"), 1, 0},
    {"meta_question_not_optional_a", {B("a?")}, D, B("a"), 0, -1},
    {"meta_question_not_optional_empty", {B("a?")}, D, B(""), 0, -1},
    {"meta_question_literal", {B("a?")}, D, B("A?"), 1, 0},
    {"meta_pipe_not_alternation_a", {B("a|b")}, D, B("a"), 0, -1},
    {"meta_pipe_not_alternation_b", {B("a|b")}, D, B("b"), 0, -1},
    {"meta_pipe_literal", {B("a|b")}, D, B("a|b"), 1, 0},
    {"meta_braces_not_count", {B("a{2}")}, D, B("aa"), 0, -1},
    {"meta_keyword_hit", {B("*.+?*")}, D, B("x.+?y"), 1, 0},
    {"meta_keyword_miss", {B("*.+?*")}, D, B("xaay"), 0, -1},
    {"meta_inline_flag_literal", {B("(?i)a")}, D, B("a"), 0, -1},

    /* ---- trailing newline and other white space ---- */
    {"newline_name_vs_exact", {B("pause")}, D, B("pause\n"), 0, -1},
    {"newline_leading_vs_exact", {B("pause")}, D, B("\npause"), 0, -1},
    {"newline_cr_vs_exact", {B("pause")}, D, B("pause\r"), 0, -1},
    {"newline_crlf_vs_exact", {B("pause")}, D, B("pause\r\n"), 0, -1},
    {"newline_in_pattern_hit", {B("pause\n")}, D, B("PAUSE\n"), 1, 0},
    {"newline_in_pattern_miss", {B("pause\n")}, D, B("pause"), 0, -1},
    {"newline_vs_glob", {B("pause*")}, D, B("pause\n"), 1, 0},
    {"newline_vs_keyword", {B("*pause*")}, D, B("pause\n"), 1, 0},
    {"space_trailing_vs_exact", {B("pause")}, D, B("pause "), 0, -1},
    {"space_leading_vs_exact", {B("pause")}, D, B(" pause"), 0, -1},
    {"space_in_pattern_exact", {B("pause ")}, D, B("PAUSE "), 1, 0},

    /* ---- case folding: Go's Unicode simple folding ---- */
    {"fold_kelvin_in_name", {B("k8s.io/x")}, D, B(KELVIN "8s.io/x"), 1, 0},
    {"fold_kelvin_in_name_upper_pattern", {B("K8S.IO/X")}, D, B(KELVIN "8s.io/x"), 1, 0},
    {"fold_kelvin_in_pattern_lower", {B(KELVIN "8s")}, D, B("k8s"), 1, 0},
    {"fold_kelvin_in_pattern_upper", {B(KELVIN "8s")}, D, B("K8S"), 1, 0},
    {"fold_kelvin_both", {B(KELVIN)}, D, B(KELVIN), 1, 0},
    {"fold_kelvin_keyword", {B("*k8s*")}, D, B("registry." KELVIN "8" LONG_S ".io/pause"), 1, 0},
    {"fold_kelvin_glob_anywhere", {B("k*")}, D, B("x" KELVIN), 1, 0},
    {"fold_kelvin_not_other_letter", {B("k")}, D, B("x"), 0, -1},
    {"fold_long_s_in_name", {B("pause")}, D, B("pau" LONG_S "e"), 1, 0},
    {"fold_long_s_in_pattern_lower", {B(LONG_S)}, D, B("s"), 1, 0},
    {"fold_long_s_in_pattern_upper", {B(LONG_S)}, D, B("S"), 1, 0},
    {"fold_e_acute_upper_name", {B("caf" E_ACUTE)}, D, B("CAF" E_ACUTE_UP), 1, 0},
    {"fold_e_acute_upper_pattern", {B(E_ACUTE_UP "t" E_ACUTE_UP)}, D, B(E_ACUTE "t" E_ACUTE), 1, 0},
    {"fold_e_acute_keyword", {B("*" E_ACUTE "t" E_ACUTE "*")}, D, B("x" E_ACUTE_UP "T" E_ACUTE_UP "x"), 1, 0},
    {"fold_e_acute_is_not_e", {B("caf" E_ACUTE)}, D, B("cafe"), 0, -1},
    {"fold_e_is_not_e_acute", {B("cafe")}, D, B("caf" E_ACUTE), 0, -1},
    {"fold_sigma_lower", {B(SIGMA_UP)}, D, B(SIGMA), 1, 0},
    {"fold_sigma_final", {B(SIGMA_UP)}, D, B(SIGMA_FINAL), 1, 0},
    {"fold_sigma_final_pattern", {B(SIGMA_FINAL)}, D, B(SIGMA), 1, 0},
    {"fold_sharp_s_capital", {B(SHARP_S)}, D, B(SHARP_S_UP), 1, 0},
    {"fold_sharp_s_is_not_ss", {B("ss")}, D, B(SHARP_S), 0, -1},
    {"fold_sharp_s_is_not_SS", {B(SHARP_S)}, D, B("SS"), 0, -1},
    {"fold_dz_upper", {B(DZ)}, D, B(DZ_UP), 1, 0},
    {"fold_dz_title", {B(DZ)}, D, B(DZ_TITLE), 1, 0},

    /* ---- names are bytes: each invalid byte reads as U+FFFD ---- */
    {"bad_ff_is_fffd", {B(FFFD)}, D, B("\xFF"), 1, 0},
    {"bad_continuation_is_fffd", {B(FFFD)}, D, B("\x80"), 1, 0},
    {"bad_real_fffd", {B(FFFD)}, D, B(FFFD), 1, 0},
    {"bad_truncated_is_two", {B(FFFD FFFD)}, D, B("\xE2\x82"), 1, 0},
    {"bad_truncated_is_not_one", {B(FFFD)}, D, B("\xE2\x82"), 0, -1},
    {"bad_truncated_then_ascii", {B("a" FFFD FFFD "b")}, D, B("A\xE2\x82" "B"), 1, 0},
    {"bad_truncated_is_not_euro", {B(EURO)}, D, B("\xE2\x82"), 0, -1},
    {"bad_overlong_is_two", {B(FFFD FFFD)}, D, B("\xC0\xAF"), 1, 0},
    {"bad_overlong_is_not_slash", {B("/")}, D, B("\xC0\xAF"), 0, -1},
    {"bad_surrogate_is_three", {B(FFFD FFFD FFFD)}, D, B("\xED\xA0\x80"), 1, 0},
    {"bad_above_max_is_four", {B(FFFD FFFD FFFD FFFD)}, D, B("\xF4\x90\x80\x80"), 1, 0},
    {"bad_two_ff_not_one", {B(FFFD)}, D, B("\xFF\xFF"), 0, -1},
    {"bad_byte_not_a_wildcard", {B("a" FFFD "b")}, D, B("axb"), 0, -1},
    {"bad_byte_inside_exact", {B("a" FFFD "b")}, D, B("a\xFE" "b"), 1, 0},
    {"bad_after_glob_prefix", {B("quay.io/*")}, D, B("quay.io/\xFF"), 1, 0},
    {"bad_before_glob_prefix", {B("quay.io/*")}, D, B("\xFFquay.io/"), 1, 0},
    {"bad_suffix_breaks_exact", {B("pause")}, D, B("pause\xFF"), 0, -1},
    {"bad_keyword_fffd_hit", {B("*" FFFD "*")}, D, B("ok\xFEok"), 1, 0},
    {"bad_keyword_fffd_miss", {B("*" FFFD "*")}, D, B("okok"), 0, -1},
    {"bad_name_folds_rest", {B("*pause*")}, D, B("\xFFPAUSE"), 1, 0},
    {"bad_name_kelvin_rest", {B("*k8s*")}, D, B("\xFF" KELVIN "8S"), 1, 0},

    /* ---- NUL bytes inside names and patterns (with lengths) ---- */
    {"nul_exact_hit", {B("a\0b")}, D, B("a\0b"), 1, 0},
    {"nul_exact_case", {B("a\0b")}, D, B("A\0B"), 1, 0},
    {"nul_exact_not_truncated_name", {B("a\0b")}, D, B("a"), 0, -1},
    {"nul_exact_other_tail", {B("a\0b")}, D, B("a\0c"), 0, -1},
    {"nul_name_vs_exact", {B("a")}, D, B("a\0"), 0, -1},
    {"nul_name_leading_vs_exact", {B("a")}, D, B("\0a"), 0, -1},
    {"nul_name_vs_glob", {B("a*")}, D, B("\0a"), 1, 0},
    {"nul_keyword_hit", {B("*\0*")}, D, B("x\0y"), 1, 0},
    {"nul_keyword_miss", {B("*\0*")}, D, B("xy"), 0, -1},
    {"nul_glob_hit", {B("a\0*")}, D, B("xA\0y"), 1, 0},
    {"nul_glob_miss", {B("a\0*")}, D, B("xay"), 0, -1},
    {"nul_only_pattern_hit", {B("\0")}, D, B("\0"), 1, 0},
    {"nul_only_pattern_not_empty", {B("\0")}, D, B(""), 0, -1},
    {"nul_only_pattern_not_two", {B("\0")}, D, B("\0\0"), 0, -1},

    /* ---- duplicates ---- */
    {"dup_exact", {B("a"), B("a"), B("A")}, D, B("a"), 1, 0},
    {"dup_exact_other_name", {B("a"), B("a"), B("A")}, D, B("b"), 0, -1},
    {"dup_keyword_case", {B("*Pause*"), B("a"), B("*pause*")}, D, B("PAUSE"), 1, 0},
    {"dup_glob_case", {B("x"), B("y*"), B("Y*")}, D, B("zy"), 1, 1},
    {"dup_glob_keyword_same_text", {B("*ab*"), B("ab*")}, D, B("xab"), 1, 0},
    {"dup_keyword_glob_same_text", {B("zz"), B("ab*"), B("*ab*")}, D, B("xab"), 1, 1},
    {"dup_starstar", {B("a"), B("**"), B("**")}, D, B("b"), 1, 1},
    {"dup_empty", {B("a"), B(""), B("")}, D, B(""), 1, 1},

    /* ---- a name matched by several patterns: the lowest index ---- */
    {"several_keyword_first", {B("*io*"), B("quay.io/x"), B("quay*")}, D, B("quay.io/x"), 1, 0},
    {"several_exact_first", {B("quay.io/x"), B("*io*"), B("quay*")}, D, B("quay.io/x"), 1, 0},
    {"several_glob_first", {B("nomatch"), B("quay*"), B("*io*")}, D, B("quay.io/x"), 1, 1},
    {"several_exact_last", {B("*x*"), B("b"), B("a")}, D, B("a"), 1, 2},
    {"several_exact_after_keyword", {B("*a*"), B("b"), B("a")}, D, B("a"), 1, 0},
    {"several_overlapping_keywords", {B("*zzz*"), B("*cdef*"), B("*abc*"), B("*bcd*"), B("*b*")}, D, B("abcdefg"), 1, 1},
    {"several_later_occurrence_lower_index", {B("*fg*"), B("*ab*")}, D, B("abcdefg"), 1, 0},
    {"several_nested_keywords", {B("*bcd*"), B("*c*")}, D, B("abcde"), 1, 0},
    {"several_nested_keywords_reverse", {B("*c*"), B("*bcd*")}, D, B("abcde"), 1, 0},
    {"several_starstar_later_empty_name", {B("a"), B("**")}, D, B(""), 1, 1},
    {"several_starstar_later_exact", {B("a"), B("**")}, D, B("a"), 1, 0},
    {"several_starstar_later_other", {B("a"), B("**")}, D, B("b"), 1, 1},
    {"several_starstar_before_empty", {B("**"), B("")}, D, B(""), 1, 0},
    {"several_empty_before_starstar", {B(""), B("**")}, D, B(""), 1, 0},
    {"several_glob_before_keyword", {B("x"), B("io*"), B("*io*")}, D, B("quay.io"), 1, 1},
    {"several_fold_variants", {B("nope"), B("*K8S*"), B("*k8s*")}, D, B(KELVIN "8s"), 1, 1},
    {"several_eight_patterns",
     {B("a"), B("b*"), B("*c*"), B("d"), B("e*"), B("*f*"), B("g"), B("*h*")}, D, B("xhfeb"), 1, 1},
    {"several_eight_patterns_last", {B("a"), B("b*"), B("*c*"), B("d"), B("e*"), B("*f*"), B("g"), B("*h*")},
     D, B("xh"), 1, 7},

    /* ---- CRIO_PIN_ANCHOR_GLOBS ---- */
    {"anchor_glob_start", {B("quay.io/*")}, A, B("quay.io/x"), 1, 0},
    {"anchor_glob_not_inside", {B("quay.io/*")}, A, B("evil.example/quay.io/x"), 0, -1},
    {"anchor_glob_case_insensitive", {B("quay.io/*")}, A, B("QUAY.IO/x"), 1, 0},
    {"anchor_glob_bare_prefix", {B("quay.io/*")}, A, B("quay.io/"), 1, 0},
    {"anchor_glob_shorter", {B("quay.io/*")}, A, B("quay.io"), 0, -1},
    {"anchor_keyword_unaffected", {B("*quay*")}, A, B("evil/quay.io"), 1, 0},
    {"anchor_exact_unaffected_hit", {B("quay.io/x")}, A, B("QUAY.io/x"), 1, 0},
    {"anchor_exact_unaffected_miss", {B("quay.io/x")}, A, B("quay.io/xy"), 0, -1},
    {"anchor_starstar", {B("**")}, A, B(""), 1, 0},
    {"anchor_leading_star_still_exact", {B("*pause")}, A, B("*pause"), 1, 0},
    {"anchor_literal_star_glob_hit", {B("a**")}, A, B("a*b"), 1, 0},
    {"anchor_literal_star_glob_miss", {B("a**")}, A, B("xa*"), 0, -1},
    {"anchor_prefixes_longest_first", {B("quay.io/a/b*"), B("zzz"), B("quay.io/*"), B("quay.io/a/*"), B("q*")}, A, B("quay.io/a/b/c"), 1, 0},
    {"anchor_prefixes_middle", {B("quay.io/a/b*"), B("zzz"), B("quay.io/*"), B("quay.io/a/*"), B("q*")}, A, B("quay.io/a/x"), 1, 2},
    {"anchor_prefixes_short", {B("quay.io/a/b*"), B("zzz"), B("quay.io/*"), B("quay.io/a/*"), B("q*")}, A, B("quay.io/x"), 1, 2},
    {"anchor_prefixes_shortest", {B("quay.io/a/b*"), B("zzz"), B("quay.io/*"), B("quay.io/a/*"), B("q*")}, A, B("qx"), 1, 4},
    {"anchor_prefixes_none_inside", {B("quay.io/a/b*"), B("zzz"), B("quay.io/*"), B("quay.io/a/*"), B("q*")}, A, B("x/quay.io/a/b"), 0, -1},
    {"anchor_shorter_prefix_lower_index", {B("q*"), B("quay.io/*")}, A, B("quay.io/x"), 1, 0},
    {"anchor_longer_prefix_lower_index", {B("quay.io/a/*"), B("quay.io/*")}, A, B("quay.io/b"), 1, 1},
    {"anchor_mixed_kinds_glob", {B("other"), B("quay*"), B("*io*")}, A, B("quay.io/x"), 1, 1},
    {"anchor_mixed_kinds_keyword", {B("other"), B("quay*"), B("*io*")}, A, B("x.quay.io/x"), 1, 2},
    {"anchor_exact_lower_than_glob", {B("quay*"), B("quay.io/x")}, A, B("quay.io/x"), 1, 0},
    {"anchor_kelvin_prefix", {B("k8s.io/*")}, A, B(KELVIN "8" LONG_S ".IO/pause"), 1, 0},
    {"anchor_kelvin_prefix_not_inside", {B("k8s.io/*")}, A, B("x" KELVIN "8s.io/pause"), 0, -1},
    {"anchor_fffd_prefix", {B(FFFD "*")}, A, B("\xFF" "abc"), 1, 0},
    {"anchor_fffd_prefix_not_inside", {B(FFFD "*")}, A, B("a\xFF"), 0, -1},
    {"anchor_nul_prefix", {B("\0*")}, A, B("\0x"), 1, 0},
    {"anchor_nul_prefix_not_inside", {B("\0*")}, A, B("x\0"), 0, -1},

    /* ---- CRIO_PIN_CASE_SENSITIVE ---- */
    {"cs_exact_hit", {B("Pause")}, C, B("Pause"), 1, 0},
    {"cs_exact_miss", {B("Pause")}, C, B("pause"), 0, -1},
    {"cs_glob_hit_anywhere", {B("Quay*")}, C, B("x/Quay.io"), 1, 0},
    {"cs_glob_miss", {B("Quay*")}, C, B("x/quay.io"), 0, -1},
    {"cs_keyword_miss", {B("*ETCD*")}, C, B("etcd"), 0, -1},
    {"cs_keyword_hit", {B("*ETCD*")}, C, B("x-ETCD-y"), 1, 0},
    {"cs_kelvin_is_not_k", {B("k")}, C, B(KELVIN), 0, -1},
    {"cs_k_is_not_K", {B("k")}, C, B("K"), 0, -1},
    {"cs_long_s_is_not_s", {B("s")}, C, B(LONG_S), 0, -1},
    {"cs_e_acute_is_not_upper", {B(E_ACUTE)}, C, B(E_ACUTE_UP), 0, -1},
    {"cs_non_ascii_hit", {B(E_ACUTE)}, C, B(E_ACUTE), 1, 0},
    {"cs_starstar", {B("**")}, C, B(""), 1, 0},
    {"cs_duplicates_by_case_differ", {B("A"), B("a")}, C, B("a"), 1, 1},
    {"cs_invalid_byte_reads_as_fffd", {B(FFFD)}, C, B("\xFF"), 1, 0},
    {"cs_anchor_hit", {B("Quay*")}, A | C, B("Quay.io"), 1, 0},
    {"cs_anchor_case_miss", {B("Quay*")}, A | C, B("quay.io"), 0, -1},
    {"cs_anchor_inside_miss", {B("Quay*")}, A | C, B("x/Quay.io"), 0, -1},

    /* ---- CRIO_PIN_STRICT: well-formed patterns keep their meaning ---- */
    {"strict_exact", {B("quay.io/x:1")}, S, B("QUAY.IO/X:1"), 1, 0},
    {"strict_glob_still_unanchored", {B("quay.io/*")}, S, B("evil/quay.io/x"), 1, 0},
    {"strict_keyword", {B("*pause*")}, S, B("x/pause:3"), 1, 0},
    {"strict_starstar_accepted", {B("**")}, S, B(""), 1, 0},
    {"strict_folding_kept", {B("k8s")}, S, B(KELVIN "8" LONG_S), 1, 0},
    {"strict_non_ascii_pattern", {B(E_ACUTE "*")}, S, B("x" E_ACUTE_UP), 1, 0},
    {"strict_lowest_index", {B("*a*"), B("b*"), B("ab")}, S, B("ab"), 1, 0},
    {"strict_anchor_hit", {B("quay.io/*")}, A | S, B("QUAY.IO/x"), 1, 0},
    {"strict_anchor_miss", {B("quay.io/*")}, A | S, B("x/quay.io/x"), 0, -1},
    {"strict_cs_miss", {B("quay.io/*")}, C | S, B("x/QUAY.IO/x"), 0, -1},
    {"strict_cs_hit", {B("quay.io/*")}, C | S, B("x/quay.io/x"), 1, 0},
    {"strict_all_hit", {B("quay.io/*")}, A | C | S, B("quay.io/x"), 1, 0},
    {"strict_all_case_miss", {B("quay.io/*")}, A | C | S, B("QUAY.IO/x"), 0, -1},
    {"strict_all_inside_miss", {B("quay.io/*")}, A | C | S, B("x/quay.io/x"), 0, -1},
};

static size_t pattern_count(const struct row *r)
{
    size_t n = 0;
    while (n < MAXP && r->pats[n].p != NULL) {
        n++;
    }
    return n;
}

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

static void run_row(const struct row *r)
{
    size_t npats = pattern_count(r);
    char *copies[MAXP];
    const char *ptrs[MAXP + 1];
    size_t lens[MAXP + 1];
    int has_nul = 0;
    for (size_t i = 0; i < npats; i++) {
        copies[i] = check_dup_exact(r->pats[i].p, r->pats[i].n, 0);
        ptrs[i] = copies[i];
        lens[i] = r->pats[i].n;
        if (memchr(r->pats[i].p, '\0', r->pats[i].n) != NULL) {
            has_nul = 1;
        }
    }
    /* Exact-size copy of the name: NULL for the empty name (the (NULL, 0)
     * convention), plus a non-NULL zero-length pointer checked below. */
    char *name = check_dup_exact(r->image.p, r->image.n, 1);

    crio_pin_error *err = (crio_pin_error *)&err; /* must be overwritten */
    crio_pin_set *set = crio_pin_compile(npats ? ptrs : NULL, npats ? lens : NULL, npats,
                                         r->flags, &err);
    if (!CHECK(r->name, set != NULL)) {
        fprintf(stderr, "  compile error: %s\n", crio_pin_error_message(err));
        crio_pin_error_free(err);
    } else {
        CHECK(r->name, err == NULL);
        check_answers(r->name, set, npats, name, r->image.n, r->match, r->index);
        if (r->image.n == 0) {
            check_answers(r->name, set, npats, r->image.p, 0, r->match, r->index);
        }
        crio_pin_free(set);
    }

    /* Same patterns, NUL-terminated, lengths == NULL. */
    if (!has_nul) {
        char *cstrs[MAXP];
        for (size_t i = 0; i < npats; i++) {
            cstrs[i] = check_dup_exact(r->pats[i].p, r->pats[i].n + 1, 0);
            ptrs[i] = cstrs[i];
        }
        err = (crio_pin_error *)&err;
        set = crio_pin_compile(ptrs, NULL, npats, r->flags, &err);
        if (!CHECK(r->name, set != NULL)) {
            fprintf(stderr, "  compile error (NUL-terminated): %s\n",
                    crio_pin_error_message(err));
            crio_pin_error_free(err);
        } else {
            CHECK(r->name, err == NULL);
            check_answers(r->name, set, npats, name, r->image.n, r->match, r->index);
            crio_pin_free(set);
        }
        for (size_t i = 0; i < npats; i++) {
            free(cstrs[i]);
        }
    }

    free(name);
    for (size_t i = 0; i < npats; i++) {
        free(copies[i]);
    }
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
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        run_row(&rows[i]);
    }
    flag_matrix();
    long_names();
    printf("test_match: %zu table rows\n", sizeof rows / sizeof rows[0]);
    return check_summary();
}
