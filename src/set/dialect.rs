//! What the other runtimes' rules add on the name's side: normalising it
//! first, and looking its repository up among the bare repositories.

use super::exact::ExactTable;

/// The name-side work of the other runtimes' rules: normalising each name
/// first, and looking its repository up among the bare repositories.
#[derive(Debug)]
pub(super) struct Dialect {
    pub(super) normalize: bool,
    pub(super) repositories: ExactTable,
}

/// A name's repository as cri-dockerd takes it: the name without its
/// digest (from the first `@`), then without a tag (a `:` after its last
/// `/`), so that a registry's port stays.
pub(super) fn repository_of(name: &[u8]) -> &[u8] {
    let name = name.iter().position(|&b| b == b'@').map_or(name, |at| &name[..at]);
    let last = name.iter().rposition(|&b| b == b'/').map_or(0, |slash| slash + 1);
    name[last..].iter().rposition(|&b| b == b':').map_or(name, |colon| &name[..last + colon])
}
