/* The installed header compiles as strict C89 (and, through the Makefile,
 * every later standard): a C runtime must be able to include it whatever
 * its -std. Compiled with -std=c89 -Wpedantic -Werror; never run. */
#include <crio_pin.h>

int header_c89_uses_every_declaration(void);

int header_c89_uses_every_declaration(void)
{
    static const char *const patterns[1] = {"**"};
    crio_pin_error *error = 0;
    crio_pin_set *set = crio_pin_compile(patterns, 0, 1, CRIO_PIN_DEFAULT, &error);
    uint8_t results[1];
    size_t length = 1;
    uint8_t fingerprint[CRIO_PIN_FINGERPRINT_BYTES];
    int failed = crio_pin_match_index(set, "a", 1) == CRIO_PIN_MATCH_FAILED
                 || crio_pin_match_each(set, "a", &length, 1, results) == CRIO_PIN_EACH_FAILED;
    failed |= !crio_pin_match(set, "a", 1) || !crio_pin_match_any(set, "a", &length, 1);
    failed |= crio_pin_len(crio_pin_clone(set)) != 1;
    failed |= crio_pin_error_kind(error) != 0 || crio_pin_error_pattern_index(error) != -1;
    failed |= crio_pin_error_message(error)[0] != '\0' || crio_pin_version()[0] == '\0';
    failed |= !crio_pin_fingerprint(set, fingerprint)
              || !crio_pin_list_fingerprint(patterns, 0, 1, CRIO_PIN_DEFAULT, fingerprint);
    crio_pin_error_free(error);
    crio_pin_free(set);
    crio_pin_free(set);
    return failed;
}
