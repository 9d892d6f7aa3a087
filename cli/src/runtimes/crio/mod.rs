//! CRI-O in the tool: the names of an image in its storage, its lint rules,
//! and (in `config`) how it reads its configuration.
//!
//! Its names: the references in its storage only. A live
//! CRI-O v1.37 showed (tests/data/crio-listings): a pull by tag stores
//! `repo:tag` only, and the repoDigest crictl prints for it is computed; a
//! pull by digest stores `repo@sha256:…`; a pull both ways stores both. So
//! the digest of a repository that also has a tag is held only if the image
//! was pulled by it.

pub mod config;

use super::{Facts, Held, Known, Model, ReadConfig, RegistryImage, Speak, StoredName, StoredNames, Unread, WriteList};
use crate::causes::{decide, Causes};
use crate::codes::CauseCode;
use crate::codes::LintCode;
use crate::error::InputError;
use crate::findings::{
    not_utf8, verdict, without_whitespace, Add, Artifacts, Compared, Containment, Fix, Rules, Severity,
};
use crate::images::{self, repository};
use crate::images::{Image, Name, Naming};
use crate::list::toml_string;
use crate::list::Entry;
use crate::list::Resolved;
use crate::refused::{self, is_control, List, Refusals, Refused};
use crate::show;
use crate::sources::Sources;
use crio_pin::pattern::{canonical, ErrorKind, Pattern};
use crio_pin::Flags;
use oci_spec::distribution::Reference;

pub struct Crio;

/// The runtime, as messages name it.
const NAME: &str = "CRI-O";

pub const FACTS: Facts = Facts {
    flags: Flags::CRIO,
    modes: Flags::CRIO_OPTIONS,
    option: "crio",
    name: NAME,
    rules: "CRI-O's globs and keywords, ignoring case",
    help: "CRI-O",
    puller: NAME,
    refuser: NAME,
    stock_refuser: "stock CRI-O",
    on_not_utf8: "CRI-O's TOML decoder refuses the file",
    unread: Unread { config: None, config_dir: None, pinned_images: None, pause_image: None },
    pins_image_ids: false,
    cri_endpoint: Some("unix:///var/run/crio/crio.sock"),
};

/// What stock CRI-O, and a runtime built on this library, do with a list
/// that has this error: CRI-O compiles the list itself, and reloads it.
///
/// Stock CRI-O compiles `pinned_images` in CompileRegexpsForPinnedImages
/// (internal/storage/image.go) with regexp.MustCompile, after slicing off
/// the stars of a `*word*`: for the lone `*` the slice `pattern[1:0]` is out
/// of range, and CRI-O panics. At start-up it does not start. On a SIGHUP
/// reload the configuration is re-read first, then the reload goroutine
/// calls UpdatePinnedImagesList, which panics with nothing to recover it:
/// the daemon ends (crio.service has Restart=on-failure).
fn on_refused(kind: &ErrorKind, list: List) -> String {
    let reload = match list {
        List::Effective => "",
        List::AfterReload => {
            "this is in the files' list, which a SIGHUP reload loads in place of the --pinned-images or \
             CONTAINER_PINNED_IMAGES list: "
        }
    };
    match kind {
        ErrorKind::LoneStar => format!("{}; {}", stock_crio_lone_star(list), refused::library_refuses(list)),
        ErrorKind::NotUtf8 { .. } => format!(
            "{reload}CRI-O's TOML decoder refuses a file that is not UTF-8 (CRI-O does not start; a \
             reload is rejected and the previous list stays); a runtime built on the crio-pin library \
             refuses the pattern the same way"
        ),
        ErrorKind::Empty
        | ErrorKind::Whitespace { .. }
        | ErrorKind::LeadingStar { .. }
        | ErrorKind::InnerStar { .. } => {
            format!(
                "{reload}stock CRI-O takes this pattern; --strict refuses it, as a runtime built on the \
                 crio-pin library in strict mode does: it does not start with the list, and on a SIGHUP \
                 reload it keeps its previous list"
            )
        }
        ErrorKind::TooLarge { .. } => {
            format!("{reload}stock CRI-O compiles it, one regexp per pattern; {}", refused::LIBRARY_REFUSES)
        }
        _ => format!("{reload}{}", refused::LIBRARY_REFUSES),
    }
}

/// The pause image of the list a reload loads, when CRI-O would reject
/// that reload for it (ReloadPauseImage: ParsePauseImage fails, and the
/// whole reload with it).
fn bad_reload_pause(entry: &Entry, index: usize) -> Option<Refused> {
    let why = crate::images::qualify(&entry.display()).err()?;
    let at = entry.defined_at.as_deref().unwrap_or("default");
    Some(Refused {
        code: LintCode::BadPauseImage.as_str(),
        file: entry.file().map(str::to_string),
        index,
        line: entry.line(),
        list: List::AfterReload.as_str(),
        message: format!(
            "the files' pause image {} (set at {at}), which a SIGHUP reload loads in place of \
             --pause-image or CONTAINER_PAUSE_IMAGE, is not a valid image reference ({why}): CRI-O \
             rejects that reload (\"Unable to reload configuration\") and keeps its configuration, the \
             pinned list included; write a reference such as {}",
            show::quote(&entry.display()),
            show::quote(crate::images::DEFAULT_PAUSE_IMAGE)
        ),
        pattern: entry.display(),
        source: entry.source.clone(),
        source_kind: entry.source_kind(),
        key: None,
    })
}

/// What stock CRI-O does on a lone '*', for the list it is in.
fn stock_crio_lone_star(list: List) -> &'static str {
    match list {
        List::Effective => {
            "stock CRI-O panics on it (CompileRegexpsForPinnedImages slices the lone '*' out of range): \
             it does not start with this list, and a SIGHUP reload that brings it ends the running \
             daemon (systemd restarts it, and it panics again)"
        }
        List::AfterReload => {
            "this is in the files' list, which a SIGHUP reload loads in place of the --pinned-images or \
             CONTAINER_PINNED_IMAGES list: stock CRI-O then panics (CompileRegexpsForPinnedImages slices \
             the lone '*' out of range) and the running daemon ends (restarted with the same flag or \
             environment, it takes that list again)"
        }
    }
}

impl Known for Crio {
    fn facts(&self) -> &'static Facts {
        &FACTS
    }
}

impl Refusals for Crio {
    fn on_refused(&self, kind: &ErrorKind, list: List) -> String {
        on_refused(kind, list)
    }

    /// CRI-O rejects a reload whose pause image is no reference.
    fn refuses_reload(&self, reload: &[Entry]) -> Option<Refused> {
        let pause = reload.last().filter(|e| e.source == "pause_image")?;
        bad_reload_pause(pause, reload.len() - 1)
    }
}

impl ReadConfig for Crio {
    fn lint_rules<'a>(&self, flags: Flags, artifacts: Option<&'a Artifacts>) -> Box<dyn Rules + 'a> {
        Box::new(CrioRules { flags, artifacts })
    }

    fn read_config(&self, sources: &Sources) -> Result<Resolved, InputError> {
        config::read(sources)
    }
}

impl StoredNames for Crio {
    fn naming(&self) -> Naming {
        Naming {
            pulled_as: images::qualify,
            image_id_record: false,
            lists_artifacts: true,
            digest_beside_tag: false,
            label_listing: None,
            compared_as: |name| name,
            pin_labels: None,
        }
    }

    fn stored_names(&self, image: &RegistryImage) -> Vec<StoredName> {
        let tags = image.tags.iter().map(|t| StoredName { text: t.clone(), held: Held::Always });
        let digests = image.digests.iter().map(|d| {
            let tagged = image.tags.iter().any(|t| repository(t) == repository(d));
            StoredName { text: d.clone(), held: if tagged { Held::IfPulledByDigest } else { Held::Always } }
        });
        tags.chain(digests).collect()
    }
}

impl WriteList for Crio {
    fn writes_exactly(&self, name: &str) -> bool {
        matches!(Pattern::parse(name, Flags::CRIO), Ok(Pattern::Exact(_)))
    }

    fn write_prefix(&self, prefix: &str, anchored: bool) -> Result<Vec<String>, String> {
        if prefix.starts_with('*') {
            return Err(
                "CRI-O reads \"*word*\" as a keyword (anywhere in the name): it has no prefix that starts with '*'"
                    .into(),
            );
        }
        // cri-dockerd's lone '*' pins every name: CRI-O's "**".
        Ok(vec![if anchored && prefix.is_empty() { "**".to_owned() } else { format!("{prefix}*") }])
    }

    fn write_keyword(&self, word: &str) -> Result<Vec<String>, String> {
        Ok(vec![format!("*{word}*")])
    }

    fn write_repository(&self, repository: &str) -> Result<Vec<String>, String> {
        Ok(vec![format!("{repository}:*"), format!("{repository}@*")])
    }

    /// A CRI-O drop-in: its list replaces the lists of the files before it.
    fn write_list(&self, patterns: &[(&Entry, &str)]) -> String {
        let mut out = String::from(
            "# A CRI-O drop-in (e.g. /etc/crio/crio.conf.d/90-pinned-images.conf): its list replaces the\n\
             # lists of the files before it; CRI-O adds its pause_image itself.\n[crio.image]\npinned_images = [\n",
        );
        for (e, p) in patterns {
            out.push_str(&format!("    {},  # {}\n", toml_string(p), show::escape(&e.source)));
        }
        out.push_str("]\n");
        out
    }
}

impl Speak for Crio {
    fn stored_as_note(&self, stored: &str) -> String {
        format!("is stored by CRI-O as {stored} (it qualifies every name it pulls)")
    }

    /// CRI-O's causes.
    fn likely_causes(
        &self,
        causes: &mut Causes<'_>,
        at: usize,
        image: &Image,
        runtime_pins: bool,
        decided_by: Option<&Name>,
    ) {
        if runtime_pins && image.artifact.is_some() {
            causes.push(CauseCode::ArtifactStore, 0, at, || {
                "the artifact is in one of CRI-O's additional artifact stores, which are read-only: CRI-O \
                 pins every artifact there whatever the list"
                    .to_string()
            });
        }
        // Its own configuration, where it was asked, says whether it runs the files' list.
        let same_list = causes.known.same_list;
        match same_list {
            Some((false, asked)) => causes.push(CauseCode::NotReloaded, 0, at, || {
                format!(
                    "the running CRI-O has another list: its own configuration ({asked} on its socket) differs \
                     from the files', so it has not loaded them since they changed (reload it: systemctl \
                     reload crio), or its reload was rejected (below)"
                )
            }),
            Some((true, _)) => {}
            None => causes.push(CauseCode::NotReloaded, 0, at, || {
                "the running CRI-O has an older list: the files changed after it read them, and no reload \
                 was sent (SIGHUP: systemctl reload crio)"
                    .to_string()
            }),
        }
        let runs_this_list = matches!(same_list, Some((true, _)));
        if runtime_pins && !runs_this_list {
            overridden_list_causes(causes, at, image);
        } else if decided_by.is_some_and(|n| !n.is_tag && image.artifact.is_none() && !pulled_by_digest(image, n)) {
            // A repoTag is always stored; a digest or a name given by hand may
            // not be. (An artifact's canonical name is always matched; so is
            // the digest of an image pulled by it, which has no tag stored.)
            causes.push(CauseCode::NameNotStored, 0, at, || {
                "the name that pins it is not stored: CRI-O matches only the names in its storage (a \
                 repoDigest is stored only for a pull by digest)"
                    .to_string()
            });
        }
        causes.push(CauseCode::ReloadRejected, 0, at, || {
            "a reload was rejected and CRI-O kept its older list (its log says \"Unable to reload \
             configuration\"; a runtime that keeps the old list on a bad reload may still log \
             \"Configuration reload completed\" and dump the rejected list)"
                .to_string()
        });
        if !runs_this_list {
            causes.push(CauseCode::OtherSources, 0, at, || {
                "CRI-O runs with --pinned-images, CONTAINER_PINNED_IMAGES or other --config/--config-dir \
                 than read here"
                    .to_string()
            });
        }
    }
}

/// The likely causes of a pin the running CRI-O has and the list read
/// here has not: a replaced list (a later file's, a flag's) that would pin
/// the image, each with the pattern it dropped.
fn overridden_list_causes(causes: &mut Causes<'_>, at: usize, image: &Image) {
    for (o, over) in causes.resolved.overrides.iter().enumerate() {
        let flags = causes.flags;
        let compiled = causes.dropped[o]
            .get_or_insert_with(|| refused::compile_valid(&over.dropped, flags, List::Effective, &Crio).ok());
        let by = match compiled {
            Some(set) => match decide(set, image) {
                Some((i, _)) => Some(&over.dropped[i]),
                None => continue,
            },
            None => None,
        };
        let warning = &causes.resolved.warnings[over.warning];
        let at_file = warning.file.clone().zip(warning.line);
        let pattern = match by {
            Some(e) => format!("pattern {} ({})", show::quote(&e.display()), e.source),
            None => "pattern".to_string(),
        };
        let message = format!(
            "{} replaced the pinned_images list set in {}, and a {pattern} it dropped pins the \
             image: a running CRI-O that has not reloaded since (or runs without the replacement) \
             still pins by it; to keep it, repeat it in the later list",
            over.by, over.replaced
        );
        causes.push_at(CauseCode::OverriddenList, o, at, at_file, || message);
    }
}

impl Model for Crio {
    /// CRI-O's loop, over the names in its storage: the tag, and the
    /// digest when the image was pulled by it (or has no tag).
    #[cfg(test)]
    fn oracle(&self, list: &[String]) -> Box<dyn super::Oracle> {
        struct Oracle(crio_pin::oracle::ReferenceSet);
        impl super::Oracle for Oracle {
            fn pins(&self, pull: &super::Pull) -> bool {
                let digest = (pull.by_digest || pull.tag.is_none()).then_some(&pull.digest);
                pull.tag.iter().chain(digest).any(|n| self.0.is_match(n.as_bytes()))
            }
        }
        let bytes: Vec<&[u8]> = list.iter().map(|s| s.as_bytes()).collect();
        Box::new(Oracle(crio_pin::oracle::ReferenceSet::compile(&bytes, Flags::CRIO).expect("a list CRI-O takes")))
    }
}

/// Whether a runtime's listing shows `image` pulled by `digest`: listed
/// (it has an ID) with no tag of that repository, so CRI-O stores the
/// digest as its name.
fn pulled_by_digest(image: &Image, digest: &Name) -> bool {
    let repo = repository(&digest.text);
    image.id.is_some() && !image.names.iter().any(|t| t.is_tag && repository(&t.text) == repo)
}

/// CRI-O's rules: its globs and keywords, the library's verdict on each
/// pattern's form, and the names CRI-O stores.
pub struct CrioRules<'a> {
    pub flags: Flags,
    pub artifacts: Option<&'a Artifacts>,
}

impl Rules for CrioRules<'_> {
    fn containment(&self, entries: &[Entry]) -> Option<Containment> {
        let parsed: Vec<Option<Pattern<'_>>> = entries
            .iter()
            .map(|e| std::str::from_utf8(&e.text).ok().and_then(|t| Pattern::parse(t, Flags::DEFAULT).ok()))
            .collect();
        Some(Containment::build(&parsed, self.flags))
    }

    fn entry<'e>(&self, entry: &'e Entry, list: List, add: &mut Add<'_>) -> Option<Compared<'e>> {
        let flags = self.flags;
        let anchored = flags.contains(Flags::ANCHOR_GLOBS);
        // Every finding about the pattern's form is the library's verdict
        // on it, asked once: the tool checks no rule of its own.
        let refusal = verdict(&entry.text);
        match refusal {
            Some(ErrorKind::NotUtf8 { valid_up_to }) => {
                add(Severity::Error, LintCode::InvalidUtf8, not_utf8(valid_up_to, FACTS.on_not_utf8), None);
                return None;
            }
            Some(ErrorKind::LoneStar) => {
                add(
                    Severity::Error,
                    LintCode::LoneStar,
                    format!(
                        "a lone '*' is not a valid pattern: {}; {}; write \"**\" to pin every image",
                        stock_crio_lone_star(list),
                        refused::library_refuses(list)
                    ),
                    Some(Fix::Write("**".to_string())),
                );
                return None;
            }
            _ => {}
        }
        // Not reached otherwise: the library took the text as UTF-8, and
        // refuses nothing else by default.
        let text = std::str::from_utf8(&entry.text).ok()?;
        let pattern = Pattern::parse(text, Flags::DEFAULT).ok()?;
        crio_form_findings(text, refusal, flags, add);
        match pattern {
            Pattern::Keyword("") => add(
                Severity::Warning,
                LintCode::PinsEverything,
                "\"**\" pins every image on the node: the kubelet's garbage collection will \
             never free disk space"
                    .to_string(),
                None,
            ),
            Pattern::Glob(prefix) if !anchored => add(
                Severity::Warning,
                LintCode::UnanchoredGlob,
                format!(
                    "CRI-O does not anchor globs: this pins every name that contains {} \
                 anywhere, e.g. {} (crio-pin --anchor-globs shows the anchored reading)",
                    show::quote(prefix),
                    show::quote(&format!("evil.example/{prefix}x"))
                ),
                None,
            ),
            _ => {}
        }
        Some(Compared { key: canonical(&entry.text, flags), pattern: Some(pattern) })
    }

    /// The pause image, appended by CRI-O to whatever list wins: naming it
    /// too is harmless, and keeps it pinned should pause_image change.
    fn harmless_repeat(&self, first: usize, entry: &Entry, entries: &[Entry]) -> Option<String> {
        (entry.source == "pause_image").then(|| {
            format!(
                "CRI-O appends the pause image to the list, and pattern {first} ({}) names it too: nothing to change",
                show::quote(&entries[first].display())
            )
        })
    }

    fn duplicate(&self, first: usize, entries: &[Entry]) -> String {
        format!(
            "same pattern as {first} ({}) as CRI-O compares them{}; remove one",
            show::quote(&entries[first].display()),
            if self.flags.contains(Flags::CASE_SENSITIVE) { "" } else { " (ignoring case)" }
        )
    }

    fn after(&self, index: usize, entry: &Entry, list: List, add: &mut Add<'_>) {
        let flags = self.flags;
        let Ok(text) = std::str::from_utf8(&entry.text) else { return };
        let Ok(pattern) = Pattern::parse(text, Flags::DEFAULT) else { return };
        let well_formed = verdict(&entry.text).is_none();
        if entry.source == "pause_image" && list == List::AfterReload {
            if let Some(bad) = bad_reload_pause(entry, index) {
                add(
                    Severity::Error,
                    LintCode::BadPauseImage,
                    bad.message,
                    Some(Fix::Write(crate::images::DEFAULT_PAUSE_IMAGE.to_string())),
                );
                return;
            }
        }
        if let (Pattern::Exact(_), true) = (pattern, well_formed) {
            let artifact = self.artifacts.map(|a| a.0.get(&canonical(text.as_bytes(), flags)));
            reference_findings(text, flags.contains(Flags::CASE_SENSITIVE), artifact, add);
        }
    }
}

/// The findings about a pattern's form that CRI-O takes and the library's
/// strict mode refuses (errors under --strict); whether there were none.
pub fn crio_form_findings(text: &str, refusal: Option<ErrorKind>, flags: Flags, add: &mut Add<'_>) -> bool {
    // Under --strict the library refuses these; by default CRI-O takes them.
    let strict_severity = if flags.contains(Flags::STRICT) { Severity::Error } else { Severity::Warning };
    let mut well_formed = true;
    match refusal {
        Some(ErrorKind::Empty) => {
            well_formed = false;
            add(
                strict_severity,
                LintCode::Empty,
                "the empty pattern pins only an image with an empty name, which does not exist; \
                 remove it"
                    .to_string(),
                Some(Fix::Remove { covered_by: None }),
            );
        }
        // A control character is the shared loop's error (`control-character`).
        Some(ErrorKind::Whitespace { ch, .. }) if is_control(ch) => well_formed = false,
        Some(ErrorKind::Whitespace { at, ch }) => {
            well_formed = false;
            let trailing_cr = if ch == '\r' && at + 1 == text.len() {
                " (a trailing \\r: the file was probably saved with CRLF line endings)"
            } else {
                ""
            };
            add(
                strict_severity,
                LintCode::Whitespace,
                format!(
                    "{ch:?} (U+{:04X}) at byte {at}{trailing_cr}; CRI-O compares it literally and \
                     image names never contain whitespace, so this pins nothing it was meant to: \
                     remove it",
                    u32::from(ch)
                ),
                without_whitespace(text).map(Fix::Write),
            );
        }
        Some(ErrorKind::LeadingStar { .. }) => {
            well_formed = false;
            add(
                strict_severity,
                LintCode::LiteralStar,
                format!(
                    "a '*' only at the start is a literal character: this pins only a name \
                     that really is {}; CRI-O has no suffix match, write {} to pin names \
                     containing {}",
                    show::quote(text),
                    show::quote(&format!("{text}*")),
                    show::quote(&text[1..])
                ),
                Some(Fix::Write(format!("{text}*"))),
            );
        }
        Some(ErrorKind::InnerStar { at }) => {
            well_formed = false;
            add(
                strict_severity,
                LintCode::LiteralStar,
                format!(
                    "the '*' at byte {at} is a literal character (only a trailing '*', or the \
                     stars around \"*word*\", are wildcards): no image name contains it"
                ),
                None,
            );
        }
        _ => {}
    }
    well_formed
}

/// Checks an exact pattern against the names CRI-O stores: fully
/// qualified (`docker.io/library/nginx:latest`), with a tag or a digest.
/// `artifact`: None without a listing, else the artifact of the listing
/// whose canonical name the pattern is, if any.
pub fn reference_findings(text: &str, case_sensitive: bool, artifact: Option<Option<&String>>, add: &mut Add<'_>) {
    // Matching ignores case unless --case-sensitive, the reference grammar does not.
    let subject = if case_sensitive { text.to_string() } else { text.to_lowercase() };
    let parsed = match images::too_long_for_a_reference(&subject) {
        Some(why) => Err(why),
        None => {
            subject.parse::<Reference>().map_err(|e| images::qualify(&subject).err().unwrap_or_else(|| e.to_string()))
        }
    };
    let reference = match parsed {
        Ok(r) => r,
        Err(why) => {
            add(
                Severity::Warning,
                LintCode::NotAReference,
                format!("not an image reference ({why}): no name CRI-O stores looks like this, it pins nothing"),
                None,
            );
            return;
        }
    };
    let repository = format!("{}/{}", reference.registry(), reference.repository());
    // The parser fills in ":latest" when neither a tag nor a digest is given.
    let untagged = reference.digest().is_none() && reference.tag() == Some("latest") && !subject.ends_with(":latest");
    if untagged {
        add(
            Severity::Warning,
            LintCode::NoTagOrDigest,
            format!(
                "pins nothing: CRI-O stores names with a tag or a digest; write {} for one tag, \
                 or the glob {} for every tag (globs are not anchored)",
                show::quote(&format!("{repository}:TAG")),
                show::quote(&format!("{repository}:*"))
            ),
            Some(Fix::Write(format!("{repository}:*"))),
        );
        return;
    }
    let whole = reference.whole();
    if whole != subject {
        // The name as CRI-O stores it keeps the case of the tag.
        let stored = images::qualify(text).ok().filter(|q| q.eq_ignore_ascii_case(&whole)).unwrap_or(whole);
        add(
            Severity::Warning,
            LintCode::NotFullyQualified,
            format!(
                "pins nothing: CRI-O compares with the fully qualified names it stores, here {}; \
                 write that instead",
                show::quote(&stored)
            ),
            Some(Fix::Write(stored)),
        );
    }
    if let Some(digest) = reference.digest() {
        digest_findings(digest, artifact, add);
    }
}

/// What a pattern naming a `digest` pins under CRI-O: an OCI artifact of
/// the listing however it was pulled (`artifact`, as `reference_findings`
/// takes it), else an image only if it was pulled by that digest.
fn digest_findings(digest: &str, artifact: Option<Option<&String>>, add: &mut Add<'_>) {
    if let Some(Some(name)) = artifact {
        add(
            Severity::Info,
            LintCode::ArtifactDigest,
            format!(
                "pins the OCI artifact {} of the --images listing however it was pulled: CRI-O \
                 matches an artifact's canonical name (repository@manifest digest) as well as its \
                 reference (taken for an artifact: its {})",
                show::quote(name),
                images::ARTIFACT_WHY
            ),
            None,
        );
        return;
    }
    let artifacts = if artifact.is_some() {
        " (no OCI artifact of the --images listing has this canonical name)"
    } else {
        ". If it names an OCI artifact, it pins it however it was pulled (CRI-O matches an \
         artifact's canonical name, repository@manifest digest): give --images (crictl images -o \
         json) to tell"
    };
    add(
        Severity::Info,
        LintCode::DigestNeedsDigestPull,
        format!(
            "pins the image only if it was pulled by this digest ({digest}): CRI-O stores a \
             digest name only for a pull by digest, and the repoDigest crictl shows for an \
             image pulled by tag is computed, not stored; to pin it whichever way it was \
             pulled, also pin its tag{artifacts}"
        ),
        None,
    );
}
