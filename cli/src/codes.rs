//! Every code the tool prints or writes in JSON, each with its one-line
//! meaning: the one list the output and the manual pages are made from
//! (each code is an enum variant, so none can be printed without a line
//! here, and each page lists every variant of its kinds).

use serde::{Serialize, Serializer};

macro_rules! codes {
    ($(#[$meta:meta])* pub enum $name:ident { $($variant:ident = $code:literal: $summary:literal,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant,)*
        }

        impl $name {
            /// Every code of this kind, in the order the manual lists them.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $code,)*
                }
            }

            /// What the code means, in one line (the manual's).
            pub fn summary(self) -> &'static str {
                match self {
                    $($name::$variant => $summary,)*
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

codes! {
    /// Warnings about the configuration (`warning[CODE]`, JSON `warnings`):
    /// printed by `config` and `lint`, and by `diff` when only the changed
    /// configuration has them.
    pub enum WarningCode {
        OverriddenList = "overridden-list":
            "a later drop-in, --pinned-images or CONTAINER_PINNED_IMAGES replaced a pinned_images list (lists replace, they do not merge); says which patterns are dropped (a note when none is)",
        IgnoredKey = "ignored-key":
            "a pinned_images or pause_image key CRI-O drops without a word: no [crio.image] header above it, another table, or a misspelling such as pinned-images (containerd: a pinned_images or sandbox_image key where containerd does not read it)",
        AmbiguousKey = "ambiguous-key":
            "[crio.image] has several keys CRI-O reads as the same setting (keys match ignoring case): which one wins is random in CRI-O (containerd: keys it reads as one, matched in lower case)",
        FlagLostOnReload = "flag-lost-on-reload":
            "--pinned-images, --pause-image or their environment variables replace the files' setting, which a SIGHUP reload loads instead",
        LeftoverFile = "leftover-file":
            "a backup, package manager's or editor's file in the drop-in directory: CRI-O decodes every file there, whatever its name",
        MissingConfig = "missing-config":
            "the default main file does not exist: CRI-O skips it, containerd starts on its built-in defaults (a missing --config file is an error, exit status 2)",
        MissingConfigDir = "missing-config-dir":
            "the drop-in directory does not exist (or is a dangling link): CRI-O reads no drop-ins, as it would after a typo in --config-dir",
        Crlf = "crlf":
            "a --patterns FILE has CRLF line endings: the '\\r' is taken as part of the line ending (TOML files may use CRLF: CRI-O reads them as this tool does, without a warning)",
        OverriddenKey = "overridden-key":
            "containerd: a later file, or a migrated sandbox_image, sets a pinned_images key again: containerd merges pinned_images key by key, the value read last wins",
        UnimportedDropIn = "unimported-drop-in":
            "containerd: files match /etc/containerd/conf.d/*.toml, but no imports entry names them: containerd reads drop-ins only through imports",
        VersionDependent = "version-dependent":
            "containerd: 2.0 to 2.2 (or 2.3.0 to 2.3.4) would pin otherwise or refuse the files: they migrate and check configuration versions differently",
        UnpinnedSandbox = "unpinned-sandbox":
            "containerd: pinned_images.sandbox is empty: pods run the default pause image, which nothing then pins",
        SelfPinningSelector = "self-pinning-selector":
            "cri-dockerd: a --pinned-image-labels selector pins by a label of the image's config, which the image's author sets: any image can pin itself, and stay on disk for ever",
        NearMissLabel = "near-miss-label":
            "a label key (a --pinned-image-labels selector, or a label of an --images listing) a few letters from one a runtime pins by (io.cri-containerd.pinned), which no runtime honours",
        PastFastTier = "past-fast-tier":
            "the list's globs and keywords need more than the library's fast tier holds (a dense table of 128 MiB): a runtime built on the crio-pin library answers it with its second tier, a few memory reads a byte of each name instead of one; says the list's size and what would bring it back (stock CRI-O takes any list, one regexp a pattern)",
        AmbiguousLabel = "ambiguous-label":
            "a row of ctr's listing whose LABELS read two ways (ctr joins the labels with commas, which a value may hold too), one with containerd's pin label and one without: read as pinned; crictl's listing (its pinned flag) says which",
        SplitValue = "split-value":
            "cri-dockerd: a --pinned-images value whose split at its commas is probably not what was meant (a quoted part, or a part that is no image name): the flag is a comma-separated list (a pflag StringSlice, read as CSV), each part its own pattern",
    }
}

codes! {
    /// What `lint` finds in a pattern (`SEVERITY[CODE]`, JSON `findings`),
    /// and the code of a pattern that makes a list refused (`refused`).
    pub enum LintCode {
        LoneStar = "lone-star":
            "error: a lone '*', which stock CRI-O panics on and a runtime built on the crio-pin library refuses; write \"**\" to pin every image",
        InvalidUtf8 = "invalid-utf8":
            "error: the pattern is not valid UTF-8, which CRI-O's TOML decoder refuses (and the library, under every runtime's rules)",
        BadPauseImage = "bad-pause-image":
            "error: the files' pause image, which a SIGHUP reload loads, is no image reference: CRI-O rejects that reload",
        PinsEverything = "pins-everything":
            "warning: \"**\" (cri-dockerd: \"*\") pins every image: the kubelet's garbage collection never frees disk space",
        UnanchoredGlob = "unanchored-glob":
            "warning: CRI-O does not anchor globs: prefix* pins every name containing prefix anywhere",
        LiteralStar = "literal-star":
            "warning (error under --strict): a '*' that is a literal character: only a trailing '*' or the stars of *word* are wildcards (cri-dockerd: only one trailing '*')",
        Empty = "empty":
            "warning (error under --strict): the empty pattern, which pins only an image with an empty name (cri-dockerd: a blank value, which it ignores)",
        Whitespace = "whitespace":
            "warning (error under --strict): whitespace (a space, tab, line ending or Unicode space), which no image name has; lint --fix removes it",
        ControlCharacter = "control-character":
            "error: a control character (NUL, escape, DEL, any C0 or C1 control but tab, line feed and carriage return), which no image name has and no typing slip makes: lint --fix never removes it",
        Duplicate = "duplicate":
            "warning: the same pattern as an earlier one, as the runtime compares them",
        Shadowed = "shadowed":
            "warning: an earlier glob or keyword already pins every name this pattern pins",
        NotFullyQualified = "not-fully-qualified":
            "warning: pins nothing: CRI-O compares with the fully qualified names it stores (docker.io/library/nginx:1)",
        NoTagOrDigest = "no-tag-or-digest":
            "warning: pins nothing: CRI-O stores names with a tag or a digest",
        NotAReference = "not-a-reference":
            "warning (error under --runtime containerd-normalized, whose list it makes refused): not an image reference, so no name the runtime stores looks like it",
        NotNormalized = "not-normalized":
            "warning: containerd: not the normalised name containerd stores (docker.io/library/nginx:latest; repo@digest without the tag; a lower-case host), which it compares as written: it pins nothing (info under containerd-normalized: it pins only with the fix PRs)",
        RepositoryPrefix = "repository-prefix":
            "warning: cri-dockerd: a prefix ending inside a repository's name (nginx* pins nginx-exporter too): the bare repository (nginx) pins its tags and digests only",
        NotFamiliar = "not-familiar":
            "warning: cri-dockerd: a Docker Hub name as Docker never reports it (docker.io/library/nginx): Docker reports familiar names (nginx:1.25), so it pins nothing",
        CommaList = "comma-list":
            "warning: cri-dockerd: a value with a comma, which no image name has: as a --pinned-images value cri-dockerd splits it at its commas (a pflag StringSlice), so each part is a pattern",
        DigestNeedsDigestPull = "digest-needs-digest-pull":
            "info: a digest pins an image only if it was pulled by that digest (an OCI artifact however it was pulled); not said of an image an --images listing shows pulled by it",
        ArtifactDigest = "artifact-digest":
            "info: the canonical name of an OCI artifact of the --images listing, which it pins however it was pulled",
        KubeletRefuses = "kubelet-refuses":
            "an allowlist entry the kubelet refuses (getAllowlistImagePattern): it does not start; says its reason and what to write",
        VerifiedPin = "verified-pin":
            "lint --kubelet-config: a pinned pattern whose images the kubelet checks by pulling again before a pod uses them (its policy, or no allowlist entry covers them); names the entry that would",
        AllowlistedUnpinned = "allowlisted-unpinned":
            "lint --kubelet-config: an allowlist entry that covers no image the runtime's list pins: the kubelet uses its images unverified as preloaded, but the garbage collector may delete them, and a pod then needs a pull it may have no credentials for",
    }
}

codes! {
    /// The likely causes `explain --check` gives for a disagreement with
    /// the runtime (JSON `causes`), each stated once with the images it
    /// can explain.
    pub enum CauseCode {
        ArtifactStore = "artifact-store":
            "the runtime pins an OCI artifact that is in one of CRI-O's read-only additional artifact stores, which are pinned whatever the list",
        NotReloaded = "not-reloaded":
            "the files changed after the running CRI-O read them, and no reload was sent (SIGHUP: systemctl reload crio)",
        OverriddenList = "overridden-list":
            "a list that a later file replaced would pin the image: the running CRI-O may still have it (the image is named only if a dropped pattern pins it)",
        NameNotStored = "name-not-stored":
            "the name that pins the image is a repoDigest, which CRI-O stores only for a pull by digest",
        ReloadRejected = "reload-rejected":
            "a reload was rejected and CRI-O kept its older list (its log says \"Unable to reload configuration\")",
        NotRestarted = "not-restarted":
            "containerd, cri-dockerd: the configuration changed after the runtime started, and it reads it only at start (containerd labels images pinned at a pull or at start-up)",
        OlderRuntime = "older-runtime":
            "containerd: before 2.0 it reads no pinned_images (1.7 pins only its sandbox image; 1.6 pins nothing and sets no pinned flag)",
        StickyLabel = "sticky-label":
            "containerd: an image pinned once stays pinned (its io.cri-containerd.pinned label is never removed) after its value leaves the configuration",
        OtherRules = "other-rules":
            "containerd: the running containerd compares as the other rules do (as released, or with a fix PR normalising values): the other --runtime answers as it does",
        SandboxImage = "sandbox-image":
            "cri-dockerd: it pins its sandbox image (--pod-infra-container-image) whatever --pinned-images says",
        LabelSelector = "label-selector":
            "cri-dockerd: --pinned-image-labels pins images by their labels, and the selectors or the labels (docker image inspect, with --images) were not given here",
        OtherSources = "other-sources":
            "the runtime reads other sources than read here: CRI-O --pinned-images, CONTAINER_PINNED_IMAGES or other --config/--config-dir; containerd another --config; cri-dockerd other --pinned-images",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_distinct_within_a_kind() {
        fn distinct(codes: impl Iterator<Item = &'static str>) {
            let mut seen = std::collections::HashSet::new();
            for c in codes {
                assert!(seen.insert(c), "{c} twice");
                assert!(c.bytes().all(|b| b.is_ascii_lowercase() || b == b'-' || b.is_ascii_digit()), "{c}");
            }
        }
        distinct(WarningCode::ALL.iter().map(|c| c.as_str()));
        distinct(LintCode::ALL.iter().map(|c| c.as_str()));
        distinct(CauseCode::ALL.iter().map(|c| c.as_str()));
    }
}
