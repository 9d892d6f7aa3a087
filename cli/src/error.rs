//! The one error the tool reports: input it cannot use (exit status 2).
//! It is said by `output::report`: this file, at the bottom of the layers,
//! prints nothing.

/// An input the tool cannot work with (exit status 2): usage, unreadable
/// or malformed files, a configuration CRI-O would refuse.
#[derive(Debug)]
pub struct InputError(pub String);
