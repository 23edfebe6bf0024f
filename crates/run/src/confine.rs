//! Landlock confinement of external tools.
//!
//! `unsafe` is forbidden in this workspace, so there is no `pre_exec` hook to restrict the
//! child between `fork` and `exec`. Instead a fresh thread restricts itself with
//! `landlock_restrict_self` (which applies to the calling thread only) and spawns the child:
//! a child inherits the Landlock domain of the thread that forks it. The thread then ends; the
//! rest of the process is never restricted.
//!
//! The domain handles every filesystem right the kernel knows and grants:
//! - read and execute beneath `/` (tools must load their interpreter, libraries and modules
//!   from wherever they are installed);
//! - every right beneath the run's private temporary directory (the working directory, `TMPDIR`
//!   and caches), and writing `/dev/null`.
//!
//! Nothing else can be created, written, truncated, renamed, linked or removed. From Landlock
//! ABI 4 it also handles TCP bind and connect with no port allowed (no network over TCP), from
//! ABI 6 it scopes abstract Unix sockets and signals to the domain, and from ABI 10 UDP too.

use std::path::Path;

/// What the confinement of a run was, as reported: `landlock` when filesystem writes and TCP
/// are confined, `landlock without network rules (kernel Landlock ABI n)` when only the
/// filesystem is, `unavailable: <why>` when the tool ran unconfined.
pub(crate) const LANDLOCK: &str = "landlock";

/// Restricts the calling thread (and so the children it spawns from now on) and says how.
#[cfg(target_os = "linux")]
pub(crate) fn restrict_current_thread(private_dir: &Path) -> String {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, LandlockStatus, RestrictionStatus, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetError, RulesetStatus, Scope, path_beneath_rules,
    };

    // The newest ABI this crate knows: best-effort mode keeps what the running kernel supports.
    let abi = ABI::V10;
    let status = (|| -> Result<RestrictionStatus, RulesetError> {
        Ruleset::default()
            .handle_access(AccessFs::from_all(abi))?
            .handle_access(AccessNet::from_all(abi))?
            .scope(Scope::from_all(abi))?
            .create()?
            .add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi)))?
            .add_rules(path_beneath_rules([private_dir], AccessFs::from_all(abi)))?
            .add_rules(path_beneath_rules(["/dev/null"], AccessFs::ReadFile | AccessFs::WriteFile))?
            .restrict_self()
    })();
    match status {
        Err(error) => format!("unavailable: {error}"),
        Ok(status) if status.ruleset == RulesetStatus::NotEnforced => match status.landlock {
            LandlockStatus::NotEnabled => "unavailable: Landlock is not enabled in this kernel".to_owned(),
            LandlockStatus::NotImplemented => "unavailable: this kernel has no Landlock".to_owned(),
            other => format!("unavailable: Landlock did not enforce the ruleset ({other:?})"),
        },
        Ok(status) => match status.landlock {
            LandlockStatus::Available { effective_abi, .. } if effective_abi < ABI::V4 => {
                format!("landlock without network rules (kernel Landlock ABI {})", effective_abi as i32)
            }
            _ => LANDLOCK.to_owned(),
        },
    }
}

/// Landlock is a Linux facility: elsewhere tools run unconfined.
#[cfg(not(target_os = "linux"))]
pub(crate) fn restrict_current_thread(_private_dir: &Path) -> String {
    "unavailable: Landlock exists on Linux only".to_owned()
}
