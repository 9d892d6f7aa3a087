//! Output for people (tables, warnings) and for scripts (JSON).
//!
//! Tables fit `WIDTH` columns unless `--no-trunc`: digests are shortened as
//! crictl and docker shorten them (`sha256:0a49ab780118…`, longer where
//! two digests of the table share those 12 characters), then the widest
//! columns give up width down to a floor, each as suits it: an image name
//! or a pattern loses its middle (its registry and its tag or digest
//! stay), a source its start (its file name and line stay). Where that is
//! not enough, the columns that can be left out are (explain's ID, then
//! SOURCE), and a note says so. JSON is always whole.

use std::io::Write;
use std::process::ExitCode;

use crate::config::Warning;
use crate::refused::Refused;
use crate::show;

/// What a command answered: its output, the refused lists to say on
/// standard error after it, and its exit status.
pub struct Outcome {
    pub out: Vec<u8>,
    pub refused: Vec<Refused>,
    pub code: u8,
}

/// Writes the output, then the reasons the refused lists are refused.
pub fn finish(outcome: Outcome) -> ExitCode {
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::stdout().lock().write_all(&outcome.out);
    for e in &outcome.refused {
        eprintln!("crio-pin: {}", show::escape(&e.line()));
    }
    ExitCode::from(outcome.code)
}

/// What tables fit by default.
pub const WIDTH: usize = 100;

/// How many hex characters of a digest a table shows at least.
const DIGEST_SHOWN: usize = 12;

const ELLIPSIS: char = '…';

/// How a column gives up width when the table is too wide.
#[derive(Clone, Copy, Debug)]
pub enum Fit {
    /// Never cut (short values: yes/no, indexes, ids).
    Fixed,
    /// Cut in the middle, keeping its start and end: image names, patterns.
    /// Cut first down to `soft` characters, then, if the table is still too
    /// wide, down to `min`.
    Middle { soft: usize, min: usize },
    /// Cut at the start, keeping its end: sources (FILE:LINE).
    Start { soft: usize, min: usize },
}

impl Fit {
    fn floors(self) -> Option<(usize, usize)> {
        match self {
            Fit::Fixed => None,
            Fit::Middle { soft, min } | Fit::Start { soft, min } => Some((soft, min)),
        }
    }
}

pub struct Column<'a> {
    pub header: &'a str,
    pub fit: Fit,
    /// 0: always shown; 1, 2: left out, in that order, when the table
    /// does not fit otherwise.
    pub optional: u8,
}

impl<'a> Column<'a> {
    pub fn fixed(header: &'a str) -> Column<'a> {
        Column { header, fit: Fit::Fixed, optional: 0 }
    }

    /// An image name or a pattern, cut to `soft` characters, `min` at most.
    pub fn name(header: &'a str, soft: usize, min: usize) -> Column<'a> {
        Column { header, fit: Fit::Middle { soft, min }, optional: 0 }
    }

    /// A source: FILE:LINE, flag, env, pause_image.
    pub fn source(header: &'a str) -> Column<'a> {
        Column { header, fit: Fit::Start { soft: 18, min: 14 }, optional: 0 }
    }

    /// Left out, at `level`, when the table does not fit otherwise.
    pub fn optional(self, level: u8) -> Column<'a> {
        Column { optional: level, ..self }
    }
}

fn width(text: &str) -> usize {
    text.chars().count()
}

/// Rows as aligned columns (the last column is not padded), fitted to
/// `WIDTH` columns unless `full`.
pub fn table(out: &mut Vec<u8>, columns: &[Column<'_>], rows: &[Vec<String>], full: bool) {
    let mut rows = rows.to_vec();
    if !full {
        shorten_digests(&mut rows);
    }
    let natural: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| rows.iter().map(|r| r.get(i).map_or(0, |cell| width(cell))).fold(width(c.header), usize::max))
        .collect();
    let mut shown: Vec<bool> = vec![true; columns.len()];
    let mut widths = natural.clone();
    if !full {
        // Cut to the soft floors, then to the minimums; then leave out the
        // first optional columns and cut again; and so on.
        let levels = columns.iter().map(|c| c.optional).max().unwrap_or(0);
        'fitted: for level in 0..=levels {
            for (s, c) in shown.iter_mut().zip(columns) {
                *s = c.optional == 0 || c.optional > level;
            }
            for pass in 0..2 {
                widths = natural.clone();
                let soft = fit(columns, &shown, &mut widths, 0);
                if soft || (pass == 1 && fit(columns, &shown, &mut widths, 1)) {
                    break 'fitted;
                }
            }
        }
        for row in &mut rows {
            for ((cell, column), &w) in row.iter_mut().zip(columns).zip(&widths) {
                *cell = cut(cell, column.fit, w);
            }
        }
    }
    let mut line = |cells: Vec<&str>| {
        let cells: Vec<(usize, &str)> = cells.into_iter().enumerate().filter(|&(i, _)| shown[i]).collect();
        let last = cells.len() - 1;
        let mut s = String::new();
        for (n, &(i, cell)) in cells.iter().enumerate() {
            s.push_str(cell);
            if n < last {
                s.push_str(&" ".repeat(widths[i].saturating_sub(width(cell)) + 2));
            }
        }
        out.extend_from_slice(s.trim_end().as_bytes());
        out.push(b'\n');
    };
    line(columns.iter().map(|c| c.header).collect());
    for row in &rows {
        line(row.iter().map(String::as_str).collect());
    }
    let left_out: Vec<&str> = columns.iter().zip(&shown).filter(|(_, &s)| !s).map(|(c, _)| c.header).collect();
    if !left_out.is_empty() {
        let _ = writeln!(
            out,
            "note: {} left out to fit {WIDTH} columns; --no-trunc shows every column, whole",
            left_out.join(" and ")
        );
    }
}

/// Narrows the shown cuttable columns until the table fits: the one
/// furthest above its floor first (pass 0: the soft floors, 1: the
/// minimums). Whether it fits.
fn fit(columns: &[Column<'_>], shown: &[bool], widths: &mut [usize], pass: usize) -> bool {
    let total = |widths: &[usize]| {
        let shown_widths = widths.iter().zip(shown).filter(|(_, &s)| s).map(|(w, _)| w);
        shown_widths.clone().sum::<usize>() + 2 * (shown_widths.count().saturating_sub(1))
    };
    let floor = |c: &Column<'_>| c.fit.floors().map(|(soft, min)| if pass == 0 { soft } else { min.min(soft) });
    while total(widths) > WIDTH {
        let widest = columns
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
    let n = width(cell);
    if n <= w || w == 0 {
        return cell.to_string();
    }
    let chars: Vec<char> = cell.chars().collect();
    match fit {
        Fit::Fixed => cell.to_string(),
        Fit::Start { .. } => {
            // From a '/' when one is near: "…/99-local.conf:5".
            let mut tail = &chars[n - (w - 1)..];
            if let Some(slash) = tail.iter().position(|&c| c == '/').filter(|&p| p > 0 && p <= tail.len() / 3) {
                tail = &tail[slash..];
            }
            std::iter::once(ELLIPSIS).chain(tail.iter().copied()).collect()
        }
        Fit::Middle { .. } => {
            // More of the end, which tells a tag or digest.
            let head = (w - 1) * 2 / 5;
            let tail = w - 1 - head;
            chars[..head].iter().chain(std::iter::once(&ELLIPSIS)).chain(&chars[n - tail..]).collect()
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

pub fn print_warnings(out: &mut Vec<u8>, warnings: &[Warning]) {
    for w in warnings {
        let _ = writeln!(out, "warning[{}]: {}", w.code, show::escape(&w.message));
    }
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
        let fit = Fit::Middle { soft: 10, min: 10 };
        assert_eq!(cut("registry.example/team/app:2.0", fit, 11), "regi…pp:2.0");
        assert_eq!(cut("short", fit, 11), "short");
        assert_eq!(cut("node/crio.conf.d/99-local.conf:5", Fit::Start { soft: 1, min: 1 }, 16), "…99-local.conf:5");
        assert_eq!(cut("node/crio.conf.d/99-local.conf:5", Fit::Start { soft: 1, min: 1 }, 20), "…/99-local.conf:5");
    }

    #[test]
    fn a_table_fits_unless_full() {
        let long = "x".repeat(90);
        let rows = vec![vec!["yes".to_string(), long.clone(), format!("dir/{long}:1")]];
        let columns = [Column::fixed("PINNED"), Column::name("IMAGE", 48, 36), Column::source("SOURCE")];
        let mut out = Vec::new();
        table(&mut out, &columns, &rows, false);
        let text = String::from_utf8(out).unwrap();
        assert!(text.lines().all(|l| width(l) <= WIDTH), "{text}");
        let mut out = Vec::new();
        table(&mut out, &columns, &rows, true);
        assert!(String::from_utf8(out).unwrap().contains(&long));
    }
}
