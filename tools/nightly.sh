# Sourced by the checks that need the nightly toolchain (fuzzing, Miri,
# ThreadSanitizer). `nightly_ready COMPONENT...` installs missing rustup
# components and returns non-zero, after saying why, when it cannot.
nightly_ready() {
    if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
        echo "SKIPPED: no nightly Rust toolchain (install it: rustup toolchain install nightly)"
        return 1
    fi
    for component in "$@"; do
        if ! rustup component list --toolchain nightly --installed 2>/dev/null | grep -q "^$component"; then
            echo "installing rustup component $component into the nightly toolchain (outside this tree:" \
                 "rustup component add $component --toolchain nightly)"
            if ! rustup component add "$component" --toolchain nightly >/dev/null 2>&1; then
                echo "SKIPPED: cannot install rustup component $component for nightly (no network?);" \
                     "run: rustup component add $component --toolchain nightly"
                return 1
            fi
        fi
    done
}
