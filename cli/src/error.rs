//! The one error the tool reports: input it cannot use (exit status 2).

use std::process::ExitCode;

use crate::output;

/// An input the tool cannot work with (exit status 2): usage, unreadable
/// or malformed files, a configuration CRI-O would refuse.
#[derive(Debug)]
pub struct InputError(pub String);

/// Says the error on standard error, escaped and wrapped unless `full`
/// (--no-trunc); exit status 2.
pub fn report(InputError(message): InputError, full: bool) -> ExitCode {
    output::say_on_stderr(&message, full);
    ExitCode::from(2)
}
