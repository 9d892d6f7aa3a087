//! `crio-pin translate --to RUNTIME`: the list read from one runtime
//! (`--runtime`, or `--from`) written for another, each entry with how
//! faithfully it carries over (`crate::translate`), then the list as the
//! target reads it; with `--images`, both lists run over a node's images
//! to show every image whose pin would change. Exit status 1 when an
//! entry changes what it pins (`Fidelity::changes_pins`: anything but
//! exact or dropped), whatever the images, or an image of `--images`
//! differs or is undecided (pinned by one list only for a pull by digest);
//! 0 when every entry is exact or dropped (it pinned nothing). With
//! `--images`, a label's example is a listed image where one shows it.

use std::io::Write;

use clap::ValueEnum;
use serde::Serialize;

use crate::args::SourceArgs;
use crate::error::InputError;
use crate::images;
use crate::list::{Entry, Origin};
use crate::output::{self, write_json, Column, Outcome};
use crate::refused::{self, List};
use crate::runtime::Runtime;
use crate::runtimes;
use crate::runtimes::{pinned, Pinned, RegistryImage};
use crate::show;
use crate::translate::{case_note, listed_why, translate, Fidelity, Translated};

/// `quiet`: the written list alone.
pub fn run(
    args: &SourceArgs,
    from: Option<Runtime>,
    to: Runtime,
    images: Option<&str>,
    quiet: bool,
) -> Result<Outcome, InputError> {
    let source = source_runtime(args, from)?;
    let resolved = runtimes::resolve(&args.sources(source))?;
    // A list its runtime refuses has no meaning to carry over.
    refused::compile(&resolved.entries, source.facts().flags, List::Effective, source.model())?;
    let listed = images.map(|path| listed_images(path, source)).transpose()?;
    let selectors = selector_entries(&resolved);
    let mut entries: Vec<(&Entry, Translated)> =
        resolved.entries.iter().map(|e| (e, translate(&e.display(), source, to))).collect();
    // A label selector is no pattern: no list of any runtime can say it.
    entries.extend(selectors.iter().map(|e| (e, label_selector(to, e))));
    // A node's own images make the examples, where they show the change.
    let shows_change =
        |f: Fidelity| matches!(f, Fidelity::Wider | Fidelity::Narrower | Fidelity::Different | Fidelity::Undecided);
    for (e, t) in entries.iter_mut().filter(|(_, t)| shows_change(t.fidelity)) {
        let listed = listed.as_ref().map_or(&[][..], |l| &l.images[..]);
        if let Some(why) = listed_why(&e.display(), source, to, t, listed) {
            t.why = Some(why);
        }
    }
    let target: Vec<String> = entries.iter().flat_map(|(_, t)| t.patterns.iter().cloned()).collect();
    let checked = listed.map(|l| check(l, &resolved.entries, source, &target, to)).transpose()?;
    let changed = entries.iter().filter(|(_, t)| t.fidelity.changes_pins()).count();
    let differ = checked.as_ref().map_or(0, |c| c.differ.len() + c.undecided.len());
    let note = case_note(source, to);
    let written = written_list(&entries, to);

    let mut out = Vec::new();
    let view =
        View { source, to, entries: &entries, checked: checked.as_ref(), note: note.as_deref(), written: &written };
    if args.json {
        write_json(&mut out, &view.json());
    } else if quiet {
        out.extend_from_slice(output::comments_wrapped(&written, args.no_trunc).as_bytes());
    } else {
        view.text(&mut out, args.no_trunc);
    }
    let code = if changed == 0 && differ == 0 { 0 } else { 1 };
    Ok(Outcome { out, refused: Vec::new(), code })
}

/// cri-dockerd's --pinned-image-labels selectors, as entries of its flags
/// beside the patterns.
fn selector_entries(resolved: &crate::list::Resolved) -> Vec<Entry> {
    let entry = |s: &crate::labels::LabelSelector| Entry {
        text: s.text.clone().into_bytes(),
        source: "flag".to_owned(),
        defined_at: None,
        at: None,
        key: None,
    };
    resolved.label_selectors.iter().map(entry).collect()
}

/// A label selector in `to`'s terms: impossible, and why.
fn label_selector(to: Runtime, selector: &Entry) -> Translated {
    let why = if to.model().label_selectors(&[selector.display()]).is_ok() {
        "the list written here holds patterns only: keep it as its --pinned-image-labels value".to_owned()
    } else {
        format!(
            "no entry of {}'s list can say it; pin those images by name (explain --images of `docker image \
             inspect` names them)",
            to.facts().name
        )
    };
    Translated {
        patterns: Vec::new(),
        fidelity: Fidelity::Impossible,
        why: Some(format!(
            "a label selector (--pinned-image-labels), not a pattern: it pins the images whose config carries the \
             label; {why}"
        )),
        gained: None,
        lost: None,
    }
}

/// The runtime the list is read from: `--from` or `--runtime`, by its own
/// rules only.
fn source_runtime(args: &SourceArgs, from: Option<Runtime>) -> Result<Runtime, InputError> {
    let source = match (from, args.runtime) {
        (Some(f), Some(r)) if f != r => {
            return Err(InputError(format!(
                "--from {} and --runtime {} disagree: give the runtime the list is read from once",
                f.facts().option,
                r.facts().option
            )))
        }
        (Some(f), _) => SourceArgs { runtime: Some(f), ..args.clone() }.runtime()?,
        (None, _) => args.runtime()?,
    };
    if args.flags(source) != source.facts().flags {
        return Err(InputError(
            "translate reads a list by its runtime's own rules: drop --anchor-globs, --case-sensitive and \
             --strict (CRI-O itself has no such setting)"
                .into(),
        ));
    }
    Ok(source)
}

/// What `translate` prints: the entries, their labels, the check over
/// the images, and the list written.
struct View<'a> {
    source: Runtime,
    to: Runtime,
    entries: &'a [(&'a Entry, Translated)],
    checked: Option<&'a Checked>,
    note: Option<&'a str>,
    written: &'a str,
}

impl<'a> View<'a> {
    fn json(&self) -> TranslateJson<'a> {
        TranslateJson {
            case_note: self.note,
            config: self.written,
            entries: self
                .entries
                .iter()
                .enumerate()
                .map(|(index, (e, t))| EntryJson {
                    fidelity: t.fidelity,
                    from: e.display(),
                    index,
                    origin: e.origin(),
                    to: &t.patterns,
                    why: t.why.as_deref(),
                })
                .collect(),
            from: self.source.facts().option,
            images: self.checked,
            to: self.to.facts().option,
        }
    }

    fn text(&self, out: &mut Vec<u8>, no_trunc: bool) {
        let (source, to, entries, note) = (self.source, self.to, self.entries, &self.note);
        let rows: Vec<Vec<String>> = entries
            .iter()
            .enumerate()
            .map(|(i, (e, t))| {
                let to_text = if t.patterns.is_empty() {
                    "-".to_owned()
                } else if !no_trunc && t.patterns == [e.display()] {
                    // The same text: a long reference need not fill the line twice.
                    "= FROM".to_owned()
                } else {
                    t.patterns.iter().map(|p| show::quote(p)).collect::<Vec<_>>().join(" ")
                };
                vec![
                    format!("#{i}"),
                    show::pattern(e.key.as_deref(), &e.display()),
                    to_text,
                    t.fidelity.as_str().to_owned(),
                    show::escape(&e.source).into_owned(),
                ]
            })
            .collect();
        let columns = [
            Column::whole("#"),
            Column::whole("FROM"),
            // The list written below says what each becomes.
            Column::whole("TO").optional(2),
            Column::whole("FIDELITY"),
            Column::source("SOURCE").optional(1),
        ];
        output::say(out, &format!("{} -> {}", as_given(source), as_given(to)), no_trunc);
        output::table(out, &columns, &rows, no_trunc);
        for (i, (_, t)) in entries.iter().enumerate() {
            if let (Some(why), true) = (&t.why, t.fidelity != Fidelity::Exact) {
                output::say(out, &format!("note: #{i} {}: {}", t.fidelity.as_str(), show::escape(why)), no_trunc);
            }
        }
        if let Some(note) = &note {
            output::say(out, &format!("note: {note}"), no_trunc);
        }
        if let Some(note) = to.model().list_note() {
            output::say(out, &format!("note: {note}"), no_trunc);
        }
        let counts: Vec<String> = Fidelity::ALL
            .iter()
            .filter_map(|&f| {
                let n = entries.iter().filter(|(_, t)| t.fidelity == f).count();
                (n > 0).then(|| format!("{n} {}", f.as_str()))
            })
            .collect();
        output::say(out, &format!("{} pattern(s): {}", entries.len(), counts.join(", ")), no_trunc);
        if let Some(c) = self.checked {
            print_checked(out, c, source, to, no_trunc);
        }
        let _ = writeln!(out);
        let _ = write!(out, "{}", output::comments_wrapped(self.written, no_trunc));
    }
}

/// What the images of a listing say of the translation: how many each
/// list pins, and each image they differ on.
fn print_checked(out: &mut Vec<u8>, c: &Checked, source: Runtime, to: Runtime, no_trunc: bool) {
    let undecided = match c.undecided.len() {
        0 => String::new(),
        n => format!(" (an image pinned only if pulled by digest counts as pinned), {n} undecided"),
    };
    output::say(
        out,
        &format!(
            "over {} image(s) of {}: {} pinned by {}'s list, {} by {}'s; {} differ{undecided}",
            c.checked,
            show::escape(&c.listing),
            c.pinned_before,
            source.facts().name,
            c.pinned_after,
            to.facts().name,
            c.differ.len(),
        ),
        no_trunc,
    );
    let pin = |p: Pinned| match p {
        Pinned::Yes => "pinned",
        Pinned::No => "not pinned",
        Pinned::IfPulledByDigest => "pinned only if pulled by digest",
    };
    for (d, (before, after)) in c.differ.iter().chain(&c.undecided).zip(c.answers()) {
        let line = format!(
            "  {}: {} by {}, {} by {}",
            show::escape(&d.names.join(", ")),
            pin(before),
            source.facts().name,
            pin(after),
            to.facts().name
        );
        output::say_indented(out, &line, "    ", no_trunc);
    }
}

/// The translated list as the target reads it: a CRI-O drop-in, a
/// containerd configuration, or cri-dockerd's values (the runtime's model
/// writes it).
fn written_list(entries: &[(&Entry, Translated)], to: Runtime) -> String {
    let patterns: Vec<(&Entry, &str)> =
        entries.iter().flat_map(|(e, t)| t.patterns.iter().map(move |p| (*e, p.as_str()))).collect();
    to.model().write_list(&patterns)
}

/// A listing's images, each as a runtime's rules see it.
struct Listed {
    path: String,
    /// Each image's names (not its ID), and the image.
    names: Vec<Vec<String>>,
    images: Vec<RegistryImage>,
    ids: Vec<Option<String>>,
}

/// The images of `path`, in the names `from` stores (a listing names an
/// image in its runtime's form; the image is the same).
fn listed_images(path: &str, from: Runtime) -> Result<Listed, InputError> {
    let listed = images::read(path, from.model().naming())?;
    let mut out = Listed { path: path.to_owned(), names: Vec::new(), images: Vec::new(), ids: Vec::new() };
    for image in &listed {
        let names: Vec<String> = image.names.iter().filter(|n| !n.is_id).map(|n| n.text.clone()).collect();
        out.images.push(RegistryImage::from_names(names.iter().map(String::as_str), image.id.as_deref()));
        out.names.push(names);
        out.ids.push(image.id.clone());
    }
    Ok(out)
}

/// Both lists over a listing's images, each judged in the names its own
/// runtime stores for the image.
fn check(
    listed: Listed,
    entries: &[Entry],
    from: Runtime,
    target: &[String],
    to: Runtime,
) -> Result<Checked, InputError> {
    let before = refused::compile(entries, from.facts().flags, List::Effective, from.model())?;
    let after = crio_pin::PinSet::compile(target, to.facts().flags)
        .map_err(|e| InputError(format!("internal error: the translated list does not compile: {e}")))?;
    let mut checked = Checked { listing: listed.path, checked: listed.images.len(), ..Checked::default() };
    for ((image, names), id) in listed.images.iter().zip(listed.names).zip(listed.ids) {
        let was = pinned(&before, from, image);
        let is = pinned(&after, to, image);
        // A pin that depends on the pull counts as a pin: never lose one silently.
        checked.pinned_before += usize::from(was != Pinned::No);
        checked.pinned_after += usize::from(is != Pinned::No);
        if was == is {
            continue;
        }
        let image = Differ { id, names, pinned_after: is == Pinned::Yes, pinned_before: was == Pinned::Yes };
        // Pinned for some pulls on one side only: neither the same nor
        // surely different, and said as such, never as "0 differ".
        if was == Pinned::IfPulledByDigest || is == Pinned::IfPulledByDigest {
            checked.undecided.push(image);
            checked.undecided_answers.push((was, is));
        } else {
            checked.differ.push(image);
        }
    }
    Ok(checked)
}

/// (Fields in alphabetical order: the order of their JSON keys.)
#[derive(Serialize, Default)]
struct Checked {
    checked: usize,
    /// Pinned by one list and not the other, whatever the pull.
    differ: Vec<Differ>,
    listing: String,
    pinned_after: usize,
    pinned_before: usize,
    /// Pinned by one list only for a pull by digest, which a listing
    /// cannot tell (`pinned_*`: pinned whatever the pull).
    undecided: Vec<Differ>,
    /// Each undecided image's answers, before and after.
    #[serde(skip)]
    undecided_answers: Vec<(Pinned, Pinned)>,
}

impl Checked {
    /// The answers of `differ` then `undecided`, in that order.
    fn answers(&self) -> impl Iterator<Item = (Pinned, Pinned)> + '_ {
        let yes_no = |b: bool| if b { Pinned::Yes } else { Pinned::No };
        let differ = self.differ.iter().map(move |d| (yes_no(d.pinned_before), yes_no(d.pinned_after)));
        differ.chain(self.undecided_answers.iter().copied())
    }
}

#[derive(Serialize)]
struct Differ {
    id: Option<String>,
    names: Vec<String>,
    pinned_after: bool,
    pinned_before: bool,
}

#[derive(Serialize)]
struct TranslateJson<'a> {
    case_note: Option<&'a str>,
    config: &'a str,
    entries: Vec<EntryJson<'a>>,
    from: &'static str,
    images: Option<&'a Checked>,
    to: &'static str,
}

#[derive(Serialize)]
struct EntryJson<'a> {
    fidelity: Fidelity,
    from: String,
    index: usize,
    #[serde(flatten)]
    origin: Origin,
    to: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<&'a str>,
}

/// A runtime as the heading names it: with its `--runtime` value when
/// another shares its name and that value says more (containerd-normalized).
fn as_given(runtime: Runtime) -> String {
    let (name, option) = (runtime.facts().name, runtime.facts().option);
    let shared = Runtime::value_variants().iter().filter(|r| r.facts().name == name).count() > 1;
    if shared && option != name {
        format!("{name} ({option})")
    } else {
        name.to_owned()
    }
}
