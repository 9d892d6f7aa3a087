//! Output for people (tables, warnings) and for scripts (JSON).
//!
//! Tables are shaped as crictl and docker shape theirs: digests are
//! shortened (`sha256:0a49ab780118…`, longer where two digests of the
//! table share those 12 characters) and ids are cut to 13 characters, but
//! an image name, a pattern or a key is never cut, so that what a table
//! shows can be copied. To fit the width (`width`), a source loses its
//! start (its file name and line stay); where that is not enough, the
//! columns that can be left out are (explain's ID, then SOURCE), and a
//! note says so; a table of long names may still be wider. A pattern that
//! is the image's name beside it is shown as `= IMAGE` (translate: the
//! same text, `= FROM`). Messages (warnings, findings, notes) wrap at the
//! same width, never inside a word: a digest reference wider than the line
//! stands whole on a line of its own. `--no-trunc` shows everything whole,
//! each message on one line; JSON is always whole.
//!
//! Color (`--color`) is added after the layout, so no width counts an
//! escape: a message's first word when it says how bad it is
//! (`error[CODE]:`, `warning[CODE]:`, `info[CODE]:`, `DISAGREEMENT:`...), a
//! table's marks (`<-- DISAGREES`), and a summary line. Never in JSON.

use std::io::Write;
use std::process::ExitCode;
use std::sync::OnceLock;

use anstyle::{AnsiColor, Style};

use crate::error::InputError;
use crate::list::Warning;
use crate::refused::Refused;
use crate::show;

/// `--color`: when the text on standard output is colored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    /// Standard output is a terminal, and NO_COLOR is unset or empty (or
    /// CLICOLOR_FORCE is set).
    #[default]
    Auto,
    Always,
    Never,
}

static COLOR: OnceLock<bool> = OnceLock::new();

/// Decides, once, whether the output is colored: `when`, and under auto
/// the environment and standard output (anstream's rules: NO_COLOR's
/// non-empty value disables, CLICOLOR_FORCE forces, TERM=dumb disables).
pub fn use_color(when: ColorWhen) {
    let on = match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never,
    };
    let _ = COLOR.set(on);
}

fn colored() -> bool {
    COLOR.get().copied().unwrap_or(false)
}

/// How bad a finding, a line or a mark says something is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Bad,
    Doubtful,
    Note,
    Fine,
}

impl Tone {
    fn style(self) -> Style {
        match self {
            Tone::Bad => AnsiColor::Red.on_default().bold(),
            Tone::Doubtful => AnsiColor::Yellow.on_default().bold(),
            Tone::Note => AnsiColor::Cyan.on_default(),
            Tone::Fine => AnsiColor::Green.on_default(),
        }
    }
}

/// `text` in `tone`'s color when the output is colored.
fn paint(out: &mut Vec<u8>, text: &[u8], tone: Tone) {
    if colored() {
        let style = tone.style();
        let _ = write!(out, "{}", style.render());
        out.extend_from_slice(text);
        let _ = write!(out, "{}", style.render_reset());
    } else {
        out.extend_from_slice(text);
    }
}

/// The mark of a table row whose runtime disagrees with the configuration.
pub const DISAGREES: &str = "<-- DISAGREES";
/// The mark of a row whose pin depends on how the image was pulled.
pub const UNDECIDED: &str = "<-- UNDECIDED";

/// A message's first word when it says how bad the rest is.
fn head_tone(message: &str) -> Option<(usize, Tone)> {
    let head = message.split(' ').next()?.strip_suffix(':')?;
    let tone = match head.split('[').next()? {
        "error" | "DISAGREEMENT" => Tone::Bad,
        "warning" | "UNDECIDED" | "REFUSED" => Tone::Doubtful,
        "info" | "note" => Tone::Note,
        _ => return None,
    };
    Some((head.len(), tone))
}

/// What a command answered: its output, the refused lists to say on
/// standard error after it, and its exit status.
pub struct Outcome {
    pub out: Vec<u8>,
    pub refused: Vec<Refused>,
    pub code: u8,
}

/// Writes the output, then the reasons the refused lists are refused
/// (wrapped unless `full`).
pub fn finish(outcome: Outcome, full: bool) -> ExitCode {
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::stdout().lock().write_all(&outcome.out);
    for e in &outcome.refused {
        say_on_stderr(&e.line(), full);
    }
    ExitCode::from(outcome.code)
}

/// Says the error on standard error, escaped and wrapped unless `full`
/// (--no-trunc); exit status 2.
pub fn report(InputError(message): InputError, full: bool) -> ExitCode {
    say_on_stderr(&message, full);
    ExitCode::from(2)
}

/// A message on standard error, after `crio-pin: `, escaped and wrapped
/// as messages on standard output are, at `COLUMNS` or else the width of
/// standard error's terminal, unless `full`. Into a log or a pipe (no
/// terminal, no `COLUMNS`) each message stays on one line, for grep.
pub fn say_on_stderr(message: &str, full: bool) {
    let mut text = Vec::new();
    let within = if full { usize::MAX } else { stderr_width() };
    wrap(&mut text, &format!("crio-pin: {}", show::escape(message)), within, INDENT);
    let _ = std::io::stderr().lock().write_all(&text);
}

/// The width when standard output is no terminal and `COLUMNS` is not set.
pub const DEFAULT_WIDTH: usize = 100;

/// Narrower than this, wrapping would say less, not more.
const MIN_WIDTH: usize = 40;

/// The width tables and messages fit: `COLUMNS` when it is a number, else
/// the width of the terminal standard output is, else `DEFAULT_WIDTH`.
pub fn width() -> usize {
    static WIDTH: OnceLock<usize> = OnceLock::new();
    *WIDTH.get_or_init(|| columns_or_terminal(libc::STDOUT_FILENO).unwrap_or(DEFAULT_WIDTH).max(MIN_WIDTH))
}

/// The width standard error's messages fit: as `width` for standard
/// output, but no limit when it is no terminal and `COLUMNS` is not set.
fn stderr_width() -> usize {
    columns_or_terminal(libc::STDERR_FILENO).map_or(usize::MAX, |w| w.max(MIN_WIDTH))
}

/// `COLUMNS` when it is a positive number, else the width of the terminal
/// `fd` is, if it is one.
fn columns_or_terminal(fd: libc::c_int) -> Option<usize> {
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok());
    columns.filter(|&w| w > 0).or_else(|| terminal_width(fd))
}

/// The columns of the terminal `fd` is, if it is one.
fn terminal_width(fd: libc::c_int) -> Option<usize> {
    let mut size = libc::winsize { ws_row: 0, ws_col: 0, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: TIOCGWINSZ writes one `winsize` into `size`, which lives
    // through the call; on a descriptor that is no terminal it fails.
    let done = unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut size) };
    (done == 0 && size.ws_col > 0).then_some(usize::from(size.ws_col))
}

/// How many hex characters of a digest a table shows at least.
const DIGEST_SHOWN: usize = 12;

const ELLIPSIS: char = '…';

/// How a column gives up width when the table is too wide.
#[derive(Clone, Copy, Debug)]
pub enum Fit {
    /// Never cut: image names, patterns, keys (whose digests are
    /// shortened), and short values.
    Whole,
    /// Cut at the start, keeping its end: sources (FILE:LINE). Cut first
    /// down to `soft` characters, then, if the table is still too wide,
    /// down to `min`.
    Start { soft: usize, min: usize },
}

impl Fit {
    fn floors(self) -> Option<(usize, usize)> {
        match self {
            Fit::Whole => None,
            Fit::Start { soft, min } => Some((soft, min)),
        }
    }
}

pub struct Column<'a> {
    pub header: &'a str,
    pub fit: Fit,
    /// 0: always shown; 1, 2, ...: left out, in that order, when the table
    /// does not fit otherwise.
    pub optional: u8,
    /// 0: never; else the level (as `optional`'s) from which each cell is
    /// shown as its first word only: a pattern as its number, `#N`, which
    /// `crio-pin config` lists.
    pub first_word_at: u8,
}

impl<'a> Column<'a> {
    /// A column never cut.
    pub fn whole(header: &'a str) -> Column<'a> {
        Column { header, fit: Fit::Whole, optional: 0, first_word_at: 0 }
    }

    /// A source: FILE:LINE, flag, env, pause_image.
    pub fn source(header: &'a str) -> Column<'a> {
        Column { header, fit: Fit::Start { soft: 18, min: 14 }, optional: 0, first_word_at: 0 }
    }

    /// Left out, at `level`, when the table does not fit otherwise.
    pub fn optional(self, level: u8) -> Column<'a> {
        Column { optional: level, ..self }
    }

    /// Shown as its cells' first words, at `level`, when the table does
    /// not fit otherwise.
    pub fn first_word(self, level: u8) -> Column<'a> {
        Column { first_word_at: level, ..self }
    }
}

/// The first word of a cell: `#3` of `#3 "quay.io/*"`.
fn first_word(cell: &str) -> &str {
    cell.split(' ').next().unwrap_or(cell)
}

/// A table's pattern cell, `#N "PATTERN"` (a containerd key before it:
/// `#N KEY = "PATTERN"`); `#N = IMAGE` (`#N KEY = IMAGE`) when the pattern
/// is the name in the row's IMAGE column (a digest reference need not fill
/// the line twice), unless `full`.
pub fn pattern_cell(index: usize, key: Option<&str>, pattern: &str, image: &str, full: bool) -> String {
    match key {
        _ if full || pattern != image => format!("#{index} {}", show::pattern(key, pattern)),
        None => format!("#{index} = IMAGE"),
        Some(key) => format!("#{index} {} = IMAGE", show::key(key)),
    }
}

fn text_width(text: &str) -> usize {
    text.chars().count()
}

/// Rows as aligned columns (the last column is not padded), fitted to
/// `width()` columns unless `full`.
pub fn table(out: &mut Vec<u8>, columns: &[Column<'_>], rows: &[Vec<String>], full: bool) {
    table_within(out, columns, rows, (!full).then(width));
}

/// A table fitted to `within` columns, or whole (None).
fn table_within(out: &mut Vec<u8>, columns: &[Column<'_>], rows: &[Vec<String>], within: Option<usize>) {
    let mut rows = rows.to_vec();
    let layout = match within {
        Some(within) => {
            shorten_digests(&mut rows);
            fit_table(columns, &mut rows, within)
        }
        None => {
            Layout { shown: vec![true; columns.len()], abridged: Vec::new(), widths: natural_widths(columns, &rows) }
        }
    };
    write_row(out, columns.iter().map(|c| c.header).collect(), &layout);
    for row in &rows {
        write_row(out, row.iter().map(String::as_str).collect(), &layout);
    }
    if let Some(within) = within {
        note_fitted(out, columns, &layout, within);
    }
}

/// How a table is laid out: which columns are shown, which are shown by
/// number (their cells' first word), and each column's width.
struct Layout<'c> {
    shown: Vec<bool>,
    abridged: Vec<&'c str>,
    widths: Vec<usize>,
}

/// Each column's width with its cells whole: its widest cell or header.
fn natural_widths(columns: &[Column<'_>], rows: &[Vec<String>]) -> Vec<usize> {
    columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            rows.iter().map(|r| r.get(i).map_or(0, |cell| text_width(cell))).fold(text_width(c.header), usize::max)
        })
        .collect()
}

/// `rows` laid out within `within` columns, their cells cut to fit. Cut
/// to the soft floors, then to the minimums; then leave out the first
/// optional columns and cut again; and so on. A table whose whole columns
/// alone are too wide is left so.
fn fit_table<'c>(columns: &[Column<'c>], rows: &mut [Vec<String>], within: usize) -> Layout<'c> {
    let mut natural = natural_widths(columns, rows);
    // A source keeps its file name and line ("…/99-local.conf:5") at least.
    let floors: Vec<Option<(usize, usize)>> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (soft, min) = c.fit.floors()?;
            let name = |cell: &String| cell.rsplit_once('/').map_or(0, |(_, name)| text_width(name) + 2);
            let name = rows.iter().filter_map(|r| r.get(i)).map(name).max().unwrap_or(0);
            Some((soft.max(name), min.max(name)))
        })
        .collect();
    let mut layout = Layout { shown: vec![true; columns.len()], abridged: Vec::new(), widths: natural.clone() };
    let levels = columns.iter().map(|c| c.optional.max(c.first_word_at)).max().unwrap_or(0);
    'fitted: for level in 0..=levels {
        for (s, c) in layout.shown.iter_mut().zip(columns) {
            *s = c.optional == 0 || c.optional > level;
        }
        for (i, c) in columns.iter().enumerate() {
            if c.first_word_at > 0 && c.first_word_at == level {
                layout.abridged.push(c.header);
                for row in rows.iter_mut().filter(|r| r.len() > i) {
                    row[i] = first_word(&row[i]).to_string();
                }
                natural = natural_widths(columns, rows);
            }
        }
        for pass in 0..2 {
            layout.widths = natural.clone();
            let soft = fit(&floors, &layout.shown, &mut layout.widths, 0, within);
            if soft || (pass == 1 && fit(&floors, &layout.shown, &mut layout.widths, 1, within)) {
                break 'fitted;
            }
        }
    }
    for row in rows.iter_mut() {
        for ((cell, column), &w) in row.iter_mut().zip(columns).zip(&layout.widths) {
            *cell = cut(cell, column.fit, w);
        }
    }
    layout
}

/// One row of a table: its shown cells padded to their columns' widths
/// (the last not padded), its mark colored.
fn write_row(out: &mut Vec<u8>, cells: Vec<&str>, layout: &Layout<'_>) {
    let cells: Vec<(usize, &str)> = cells.into_iter().enumerate().filter(|&(i, _)| layout.shown[i]).collect();
    let last = cells.len() - 1;
    let mut s = String::new();
    for (n, &(i, cell)) in cells.iter().enumerate() {
        s.push_str(cell);
        if n < last {
            s.push_str(&" ".repeat(layout.widths[i].saturating_sub(text_width(cell)) + 2));
        }
    }
    let s = s.trim_end();
    // A row's mark is colored after the row is laid out.
    let marked = [(DISAGREES, Tone::Bad), (UNDECIDED, Tone::Doubtful)]
        .into_iter()
        .find_map(|(mark, tone)| s.strip_suffix(mark).map(|before| (before, mark, tone)));
    match marked {
        Some((before, mark, tone)) => {
            out.extend_from_slice(before.as_bytes());
            paint(out, mark.as_bytes(), tone);
        }
        None => out.extend_from_slice(s.as_bytes()),
    }
    out.push(b'\n');
}

/// The note under a table fitted to `within` columns: what was left out,
/// or shown by number, to fit.
fn note_fitted(out: &mut Vec<u8>, columns: &[Column<'_>], layout: &Layout<'_>, within: usize) {
    let left_out: Vec<&str> = columns.iter().zip(&layout.shown).filter(|(_, &s)| !s).map(|(c, _)| c.header).collect();
    let mut changes = Vec::new();
    if !left_out.is_empty() {
        changes.push(format!("{} left out", left_out.join(" and ")));
    }
    if !layout.abridged.is_empty() {
        changes.push(format!("{} shown by number (crio-pin config lists each)", layout.abridged.join(" and ")));
    }
    if !changes.is_empty() {
        let message =
            format!("note: {} to fit {within} columns; --no-trunc shows every column, whole", changes.join(", "));
        say(out, &message, false);
    }
}

/// Narrows the shown cuttable columns (those with `floors`) until the
/// table fits `within`: the one furthest above its floor first (pass 0: the soft floors, 1: the
/// minimums). Whether it fits.
fn fit(floors: &[Option<(usize, usize)>], shown: &[bool], widths: &mut [usize], pass: usize, within: usize) -> bool {
    let total = |widths: &[usize]| {
        let shown_widths = widths.iter().zip(shown).filter(|(_, &s)| s).map(|(w, _)| w);
        shown_widths.clone().sum::<usize>() + 2 * (shown_widths.count().saturating_sub(1))
    };
    let floor = |f: &Option<(usize, usize)>| f.map(|(soft, min)| if pass == 0 { soft } else { min.min(soft) });
    while total(widths) > within {
        let widest = floors
            .iter()
            .zip(widths.iter())
            .enumerate()
            .filter(|&(i, _)| shown[i])
            .filter_map(|(i, (c, &w))| floor(c).filter(|&f| w > f).map(|f| (w - f, i)))
            .max_by_key(|&(excess, i)| (excess, std::cmp::Reverse(i)));
        match widest {
            Some((_, i)) => widths[i] -= 1,
            None => return false,
        }
    }
    true
}

/// `cell` cut to `w` characters as its column is cut.
fn cut(cell: &str, fit: Fit, w: usize) -> String {
    let n = text_width(cell);
    if n <= w || w == 0 {
        return cell.to_string();
    }
    let chars: Vec<char> = cell.chars().collect();
    match fit {
        Fit::Whole => cell.to_string(),
        Fit::Start { .. } => {
            // From a '/' when one is near: "…/99-local.conf:5".
            let mut tail = &chars[n - (w - 1)..];
            if let Some(slash) = tail.iter().position(|&c| c == '/').filter(|&p| p > 0 && p <= tail.len() / 3) {
                tail = &tail[slash..];
            }
            std::iter::once(ELLIPSIS).chain(tail.iter().copied()).collect()
        }
    }
}

/// The digests (`sha256:` and 64 hex characters, `sha512:` and 128) in
/// the cells, each shortened to the fewest characters, at least 12, that
/// tell the table's digests apart.
fn shorten_digests(rows: &mut [Vec<String>]) {
    let mut digests: Vec<&str> = Vec::new();
    let found: Vec<Vec<(usize, usize)>> =
        rows.iter().flat_map(|row| row.iter().map(|cell| digest_spans(cell))).collect();
    for (cell, spans) in rows.iter().flat_map(|row| row.iter()).zip(&found) {
        digests.extend(spans.iter().map(|&(start, end)| &cell[start..end]));
    }
    if digests.is_empty() {
        return;
    }
    digests.sort_unstable();
    digests.dedup();
    // Sorted, a digest shares the longest prefix with a neighbour.
    let shared = digests.windows(2).map(|p| p[0].bytes().zip(p[1].bytes()).take_while(|(a, b)| a == b).count());
    let keep = shared.max().map_or(DIGEST_SHOWN, |s| (s + 1).max(DIGEST_SHOWN));
    let mut found = found.into_iter();
    for cell in rows.iter_mut().flat_map(|row| row.iter_mut()) {
        let spans = found.next().unwrap_or_default();
        if spans.is_empty() {
            continue;
        }
        let mut short = String::with_capacity(cell.len());
        let mut from = 0;
        for (start, end) in spans {
            if keep >= end - start {
                continue;
            }
            short.push_str(&cell[from..start + keep]);
            short.push(ELLIPSIS);
            from = end;
        }
        short.push_str(&cell[from..]);
        *cell = short;
    }
}

/// Where the hex of each whole digest in `text` is (byte ranges).
fn digest_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    for (algorithm, len) in [("sha256:", 64), ("sha512:", 128)] {
        for (at, _) in text.match_indices(algorithm) {
            let start = at + algorithm.len();
            let hex = text[start..].bytes().take_while(u8::is_ascii_hexdigit).count();
            if hex == len {
                spans.push((start, start + len));
            }
        }
    }
    spans.sort_unstable();
    spans
}

/// The configuration's warnings, each wrapped unless `full`.
pub fn print_warnings(out: &mut Vec<u8>, warnings: &[Warning], full: bool) {
    for w in warnings {
        say(out, &format!("{}[{}]: {}", w.severity, w.code, show::escape(&w.message)), full);
    }
}

/// A message (a warning, a finding, a note: one line of text), wrapped at
/// `width()` unless `full`. Its digests stay whole: a message may say what
/// to write, and that must be copyable.
pub fn say(out: &mut Vec<u8>, message: &str, full: bool) {
    say_indented(out, message, INDENT, full);
}

/// A message as `say` prints it, its later lines indented by `indent`
/// (an item of a list: `  - ITEM`, then `    `).
pub fn say_indented(out: &mut Vec<u8>, message: &str, indent: &str, full: bool) {
    let within = if full { usize::MAX } else { width() };
    let mut text = Vec::new();
    wrap(&mut text, message, within, indent);
    // The head has no space: it is on the first line, whole.
    match head_tone(message) {
        Some((len, tone)) => {
            paint(out, &text[..len], tone);
            out.extend_from_slice(&text[len..]);
        }
        None => out.extend_from_slice(&text),
    }
}

/// A summary line, wrapped as `say` wraps a message, in `tone`'s color.
pub fn say_summary(out: &mut Vec<u8>, message: &str, tone: Tone, full: bool) {
    let within = if full { usize::MAX } else { width() };
    let mut text = Vec::new();
    wrap(&mut text, message, within, INDENT);
    for line in text.split_inclusive(|&b| b == b'\n') {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let indent = body.iter().take_while(|&&b| b == b' ').count();
        out.extend_from_slice(&body[..indent]);
        paint(out, &body[indent..], tone);
        out.push(b'\n');
    }
}

/// `text` wrapped as `say` wraps a message, within `within` columns, its
/// later lines indented by `indent`: lines ending in a newline.
pub fn wrapped(text: &str, within: usize, indent: &str) -> String {
    let mut out = Vec::new();
    wrap(&mut out, text, within, indent);
    String::from_utf8(out).expect("wrapping UTF-8 at spaces keeps it UTF-8")
}

/// How far a wrapped message's later lines are indented.
const INDENT: &str = "  ";

/// `text` in lines of at most `within` columns, broken at spaces; the
/// later lines indented by `indent`. A word wider than the line is kept
/// whole on its own line: a name is never broken.
fn wrap(out: &mut Vec<u8>, text: &str, within: usize, indent: &str) {
    let mut line = String::new();
    let mut line_width = 0;
    let mut has_word = false;
    for word in text.split(' ') {
        let w = text_width(word);
        if has_word && line_width + 1 + w > within {
            out.extend_from_slice(line.trim_end().as_bytes());
            out.push(b'\n');
            line = indent.to_string();
            line_width = indent.len();
            has_word = false;
        }
        if has_word {
            line.push(' ');
            line_width += 1;
        }
        line.push_str(word);
        line_width += w;
        has_word = true;
    }
    out.extend_from_slice(line.trim_end().as_bytes());
    out.push(b'\n');
}

/// The written list with its opening comment, a paragraph of `# ` lines,
/// wrapped to the width as messages are (unless `full`); the list itself
/// stays as written, each entry on its line, to be copied.
pub fn comments_wrapped(written: &str, full: bool) -> String {
    let lines: Vec<&str> = written.lines().collect();
    let comment = lines.iter().take_while(|l| l.starts_with("# ")).count();
    if full || comment == 0 {
        return written.to_string();
    }
    let paragraph: Vec<&str> = lines[..comment].iter().map(|l| l.trim_start_matches("# ")).collect();
    let mut text = wrapped(&format!("# {}", paragraph.join(" ")), width(), "# ");
    for line in &lines[comment..] {
        text.push_str(line);
        text.push('\n');
    }
    text
}

pub fn write_json(out: &mut Vec<u8>, value: &impl serde::Serialize) {
    serde_json::to_writer_pretty(&mut *out, value).expect("writing JSON to memory");
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(texts: &[&str]) -> Vec<Vec<String>> {
        texts.iter().map(|t| vec![t.to_string()]).collect()
    }

    #[test]
    fn digests_are_shortened_to_what_tells_them_apart() {
        let a = format!("q.io/a@sha256:{}", "0a49ab780118".to_string() + &"1".repeat(52));
        let b = format!("q.io/b@sha256:{}", "0a49ab7801187".to_string() + &"2".repeat(51));
        let mut rows = cells(&[&a, "#0 \"q.io/x:1\""]);
        shorten_digests(&mut rows);
        assert_eq!(rows[0][0], "q.io/a@sha256:0a49ab780118…");
        assert_eq!(rows[1][0], "#0 \"q.io/x:1\"");
        // Two digests sharing 12 characters show 13.
        let mut rows = cells(&[&a, &format!("#2 \"{b}\"")]);
        shorten_digests(&mut rows);
        assert_eq!(rows[0][0], "q.io/a@sha256:0a49ab7801181…");
        assert_eq!(rows[1][0], "#2 \"q.io/b@sha256:0a49ab7801187…\"");
        // The same digest twice is one digest; a short hex run is no digest.
        let mut rows = cells(&[&a, &a, "sha256:abc"]);
        shorten_digests(&mut rows);
        assert_eq!(rows[1][0], "q.io/a@sha256:0a49ab780118…");
        assert_eq!(rows[2][0], "sha256:abc");
    }

    #[test]
    fn cells_are_cut_as_their_column_is() {
        assert_eq!(cut("registry.example/team/app:2.0", Fit::Whole, 11), "registry.example/team/app:2.0");
        assert_eq!(cut("node/crio.conf.d/99-local.conf:5", Fit::Start { soft: 1, min: 1 }, 16), "…99-local.conf:5");
        assert_eq!(cut("node/crio.conf.d/99-local.conf:5", Fit::Start { soft: 1, min: 1 }, 20), "…/99-local.conf:5");
    }

    #[test]
    fn a_table_fits_by_its_sources_never_by_its_names() {
        let long = "x".repeat(60);
        let digest = format!("q.io/a@sha256:{}", "0a49ab780118".to_string() + &"1".repeat(52));
        let rows = vec![
            vec!["yes".to_string(), long.clone(), format!("{long}/99-local.conf:1")],
            vec!["no".to_string(), digest.clone(), "flag".to_string()],
        ];
        let columns = [Column::whole("PINNED"), Column::whole("IMAGE"), Column::source("SOURCE")];
        let mut out = Vec::new();
        table_within(&mut out, &columns, &rows, Some(100));
        let text = String::from_utf8(out).unwrap();
        assert!(text.lines().all(|l| text_width(l) <= 100), "{text}");
        assert!(text.contains(&long) && text.contains("q.io/a@sha256:0a49ab780118…"), "{text}");
        assert!(text.contains("  …x") && text.contains("/99-local.conf:1\n"), "the source keeps its end: {text}");
        // Too narrow for the names: they stay whole, the table is wider.
        let mut out = Vec::new();
        table_within(&mut out, &columns, &rows, Some(40));
        assert!(String::from_utf8(out).unwrap().contains(&long));
        let mut out = Vec::new();
        table_within(&mut out, &columns, &rows, None);
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains(&digest) && text.contains(&format!("{long}/99-local.conf:1")), "{text}");
    }

    #[test]
    fn the_width_is_the_terminal_s() {
        let (mut leader, mut follower) = (-1, -1);
        let size = libc::winsize { ws_row: 24, ws_col: 77, ws_xpixel: 0, ws_ypixel: 0 };
        // SAFETY: openpty writes two descriptors into the variables, and
        // reads the window size it is given; both are closed below.
        let opened =
            unsafe { libc::openpty(&mut leader, &mut follower, std::ptr::null_mut(), std::ptr::null(), &size) };
        assert_eq!(opened, 0, "openpty: {}", std::io::Error::last_os_error());
        assert_eq!(terminal_width(follower), Some(77));
        // SAFETY: the descriptors openpty gave, closed once.
        unsafe {
            libc::close(follower);
            libc::close(leader);
        }
        // A file is no terminal.
        let file = std::fs::File::open("/dev/null").unwrap();
        assert_eq!(terminal_width(std::os::fd::AsRawFd::as_raw_fd(&file)), None);
    }

    #[test]
    fn a_pattern_that_is_the_image_s_name_is_not_shown_twice() {
        let image = "registry.k8s.io/pause:3.10";
        assert_eq!(pattern_cell(3, None, image, image, false), "#3 = IMAGE");
        assert_eq!(pattern_cell(3, None, image, image, true), "#3 \"registry.k8s.io/pause:3.10\"");
        assert_eq!(pattern_cell(0, None, "registry.k8s.io/*", image, false), "#0 \"registry.k8s.io/*\"");
        // Another case is another text: shown.
        assert_eq!(
            pattern_cell(1, None, "Registry.k8s.io/pause:3.10", image, false),
            "#1 \"Registry.k8s.io/pause:3.10\""
        );
        // A containerd key is said with its value, `= IMAGE` when it is the name.
        assert_eq!(pattern_cell(6, Some("sandbox"), image, image, false), "#6 sandbox = IMAGE");
        assert_eq!(pattern_cell(6, Some("sandbox"), image, image, true), "#6 sandbox = \"registry.k8s.io/pause:3.10\"");
        assert_eq!(pattern_cell(2, Some("my app"), "q.io/a:1", image, false), "#2 \"my app\" = \"q.io/a:1\"");
    }

    #[test]
    fn messages_wrap_at_spaces_and_never_break_a_word() {
        let wrapped = |text: &str, within| {
            let mut out = Vec::new();
            wrap(&mut out, text, within, INDENT);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(wrapped("warning[x]: one two three", 100), "warning[x]: one two three\n");
        assert_eq!(wrapped("warning[x]: one two three", 16), "warning[x]: one\n  two three\n");
        let long = "q.io/".to_string() + &"a".repeat(30);
        assert_eq!(wrapped(&format!("note: {long} is long"), 20), format!("note:\n  {long}\n  is long\n"));
        assert_eq!(wrapped(&long, 20), format!("{long}\n"));
    }
}
