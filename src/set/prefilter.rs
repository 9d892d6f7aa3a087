//! A packed (Teddy) prefilter for lists of a few needles.

/// Most needles given a prefilter ([`Prefilter`]): each takes up to 8 of
/// Teddy's 64 patterns (a 3-byte piece in every ASCII case; 4 bytes, 16
/// patterns, for up to 4 needles).
pub(super) const PREFILTER_MAX_NEEDLES: usize = 8;

/// Longest needle given a prefilter.
pub(super) const PREFILTER_MAX_NEEDLE_BYTES: usize = 4096;

/// A packed (Teddy) searcher for the last 3 or 4 bytes of each needle, in
/// every ASCII case, and the needles to verify its candidates with: a name
/// in which no candidate is a whole needle (compared ASCII case-insensitively)
/// contains no needle, if it is all ASCII (its canonical form then differs
/// only in case). The end of a needle is its most telling part: registries
/// and organisations are shared by many names, a repository and tag by few.
/// (Longer pieces, with their many case variants, made Teddy slower than the
/// walk it saves.)
#[derive(Debug)]
pub(super) struct Prefilter {
    pub(super) searcher: aho_corasick::packed::Searcher,
    /// The canonical needles.
    pub(super) needles: Vec<Vec<u8>>,
    /// The pieces' length (shorter needles are their own piece).
    pub(super) width: usize,
    pub(super) fold: bool,
}

impl Prefilter {
    /// `None` for more than [`PREFILTER_MAX_NEEDLES`] needles, or where
    /// Teddy is not available (no SIMD).
    pub(super) fn build(needles: &[&[u8]], fold: bool) -> Option<Prefilter> {
        // (It keeps a copy of its needles: long ones would cost memory
        // and gain nothing, as no image name holds them.)
        if needles.len() > PREFILTER_MAX_NEEDLES || needles.iter().any(|n| n.len() > PREFILTER_MAX_NEEDLE_BYTES) {
            return None;
        }
        let width = if needles.len() <= 4 { 4 } else { 3 };
        let mut builder = aho_corasick::packed::Config::new().builder();
        for needle in needles {
            let piece = &needle[needle.len().saturating_sub(width)..];
            let letters: Vec<usize> = (0..piece.len()).filter(|&i| fold && piece[i].is_ascii_alphabetic()).collect();
            for mask in 0..1u32 << letters.len() {
                let mut variant = piece.to_vec();
                for (bit, &i) in letters.iter().enumerate() {
                    if mask & (1 << bit) != 0 {
                        variant[i] = variant[i].to_ascii_lowercase();
                    }
                }
                builder.add(variant);
            }
        }
        let searcher = builder.build()?;
        Some(Prefilter { searcher, needles: needles.iter().map(|n| n.to_vec()).collect(), width, fold })
    }

    /// Whether some needle occurs in `name` as it is (ASCII case folded);
    /// false says nothing about a name that is not all ASCII.
    pub(super) fn may_occur(&self, name: &[u8]) -> bool {
        let mut from = 0;
        while let Some(m) = self.searcher.find_in(name, aho_corasick::Span::from(from..name.len())) {
            // Teddy reports one piece per start; pieces of several needles
            // may start here (equal, or one a prefix of another): try all.
            let at = m.start();
            if self.needles.iter().any(|needle| self.ends_at(name, needle, at)) {
                return true;
            }
            from = at + 1;
        }
        false
    }

    /// Whether `needle`'s piece starts at `at` in `name` and the whole
    /// needle ends with it.
    pub(super) fn ends_at(&self, name: &[u8], needle: &[u8], at: usize) -> bool {
        let piece = needle.len().min(self.width);
        let end = at + piece;
        let Some(start) = end.checked_sub(needle.len()) else { return false };
        let Some(text) = name.get(start..end) else { return false };
        if self.fold {
            text.iter().zip(needle).all(|(&t, &n)| t.to_ascii_uppercase() == n)
        } else {
            text == needle
        }
    }

    pub(super) fn memory_usage(&self) -> usize {
        self.searcher.memory_usage() + self.needles.iter().map(Vec::capacity).sum::<usize>()
    }
}
