//! Pattern intake: the list read, checked against the limits and parsed,
//! one pattern at a time.

use super::{MAX_PATTERNS, MAX_PATTERN_BYTES};
use crate::normalize::normalize;
use crate::pattern::{CompileError, ErrorKind, Flags, Pattern};

/// Parses every pattern of the list as [`PinSet::compile`] does, in order,
/// handing each to `each` with its index; fails at the first bad one, and
/// at the first over the limits before reading it (so an oversized list
/// costs nothing to refuse). Returns the number of patterns.
pub(super) fn each_pattern<I>(
    patterns: I,
    flags: Flags,
    mut each: impl FnMut(u32, Pattern<'_>),
) -> Result<usize, CompileError>
where
    I: IntoIterator,
    I::Item: AsRef<[u8]>,
{
    flags.check()?;
    let mut len = 0;
    let mut total_bytes = 0usize;
    let mut normalized_text = Vec::new();
    for (i, raw) in patterns.into_iter().enumerate() {
        let raw = raw.as_ref();
        if i >= MAX_PATTERNS {
            return Err(too_many_patterns(i));
        }
        total_bytes = total_bytes.saturating_add(raw.len());
        if total_bytes > MAX_PATTERN_BYTES {
            return Err(too_many_bytes(i));
        }
        let index = u32::try_from(i).expect("MAX_PATTERNS fits in u32");
        let text = std::str::from_utf8(raw)
            .map_err(|e| CompileError::at(i, raw, ErrorKind::NotUtf8 { valid_up_to: e.valid_up_to() }))?;
        let pattern = Pattern::parse(text, flags).map_err(|kind| CompileError::at(i, raw, kind))?;
        match pattern {
            Pattern::Exact(text) | Pattern::Repository(text) if flags.contains(Flags::NORMALIZE) => {
                let normalized = normalize(text.as_bytes())
                    .map_err(|why| CompileError::at(i, raw, ErrorKind::InvalidReference { why }))?;
                normalized_text.clear();
                normalized.write_to(&mut normalized_text);
                // (ASCII: the grammar admits nothing else.)
                let text = std::str::from_utf8(&normalized_text).expect("a reference is ASCII");
                each(
                    index,
                    match pattern {
                        // A bare repository gained `:latest`, which its
                        // repository does not have.
                        Pattern::Repository(_) => Pattern::Repository(&text[..text.len() - ":latest".len()]),
                        _ => Pattern::Exact(text),
                    },
                );
            }
            _ => each(index, pattern),
        }
        len = i + 1;
    }
    Ok(len)
}

/// Pattern `index` is one more than [`MAX_PATTERNS`] allows.
pub(crate) fn too_many_patterns(index: usize) -> CompileError {
    CompileError::new(Some(index), ErrorKind::TooLarge { what: "the number of patterns", limit: MAX_PATTERNS })
}

/// Pattern `index` takes the list past [`MAX_PATTERN_BYTES`]. (The error
/// does not quote it: through the C ABI, a length over the limit may lie,
/// and is never read through.)
pub(crate) fn too_many_bytes(index: usize) -> CompileError {
    CompileError::new(
        Some(index),
        ErrorKind::TooLarge { what: "the total size of all patterns in bytes", limit: MAX_PATTERN_BYTES },
    )
}
