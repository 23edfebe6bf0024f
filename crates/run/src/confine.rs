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
//! ABI 6 it scopes abstract Unix sockets and signals to the domain, from ABI 9 it denies
//! connecting to pathname Unix sockets outside the private folder, and from ABI 10 UDP too.

use std::path::{Path, PathBuf};

/// What the confinement of a run was, as [`crate::spawn`] reports it: `landlock` when
/// filesystem writes and TCP are confined (UDP and pathname Unix sockets may be open: see
/// [`described`] for the exact word [`crate::spawn_no_exec_in`] gives), `landlock without network rules (kernel Landlock ABI n)` when only the
/// filesystem is, `unavailable: <why>` when the tool ran unconfined.
pub(crate) const LANDLOCK: &str = "landlock";

/// The most entries beside the roots' ancestors that [`crate::spawn_no_exec_in`]
/// grants execution beneath, one Landlock rule each; past this the child is not started.
pub const MAX_EXEC_RULES: usize = 100_000;

/// Restricts the calling thread (and so the children it spawns from now on) and says how.
pub(crate) fn restrict_current_thread(private_dir: &Path) -> String {
    restrict(private_dir, None).word
}

/// How a thread was restricted: the word [`crate::spawn`] reports, and the Landlock ABI the
/// kernel enforced (`None`: not confined).
pub(crate) struct Restricted {
    pub(crate) word: String,
    pub(crate) abi: Option<i32>,
}

/// The confinement of a child spawned by [`crate::spawn_no_exec_in`], saying exactly what
/// holds with the kernel's Landlock `abi` (`None`: Landlock did not confine it, `word` says
/// why) and whether it runs in a network namespace of its own (`Ok(how)`) or not (`Err(why)`):
/// TCP is closed from ABI 4, abstract Unix sockets from ABI 6, pathname Unix sockets from
/// ABI 9, UDP from ABI 10; a network namespace closes TCP, UDP and abstract sockets.
pub(crate) fn described(word: &str, abi: Option<i32>, namespace: &Result<String, String>) -> String {
    let Some(abi) = abi else {
        return match namespace {
            Ok(how) => format!("{word}; in a network namespace of its own ({how}): no network"),
            Err(_) => word.to_owned(),
        };
    };
    let netns = namespace.is_ok();
    let mut closed = vec!["no writes outside the private folder", "nothing beneath a root executed"];
    closed.push(match (netns, abi) {
        (true, _) => "no network",
        (false, 10..) => "no TCP or UDP",
        (false, 4..) => "no TCP",
        (false, _) => "",
    });
    let mut open = Vec::new();
    match (netns, abi) {
        (true, _) | (false, 10..) => {}
        (false, 4..) => open.push("UDP"),
        (false, _) => open.push("TCP and UDP"),
    }
    let abstract_open = !netns && abi < 6;
    match (abi < 9, abstract_open) {
        (true, true) => open.push("Unix sockets"),
        (true, false) => open.push("pathname Unix sockets"),
        (false, true) => open.push("abstract Unix sockets"),
        (false, false) => {}
    }
    let closed: Vec<&str> = closed.into_iter().filter(|item| !item.is_empty()).collect();
    let mut out = match namespace {
        Ok(how) => format!("landlock (ABI {abi}) in a network namespace of its own ({how}): "),
        Err(_) => format!("landlock (ABI {abi}): "),
    };
    out.push_str(&closed.join(", "));
    if !open.is_empty() {
        out.push_str(&format!("; {} open", open.join(" and ")));
    }
    if let Err(why) = namespace {
        out.push_str(&format!(" (no network namespace: {why})"));
    }
    out
}

/// As [`restrict_current_thread`], and nothing beneath `roots` may be executed: execution
/// is granted beneath every entry of the roots' ancestors that is neither on the way to a
/// root nor a link (Landlock cannot take a subtree out of a grant, so the grant is built as
/// the complement), reading stays allowed everywhere. A file created beside an ancestor
/// later cannot be executed either. `Err` when the complement would take more than
/// [`MAX_EXEC_RULES`] rules.
pub(crate) fn restrict_current_thread_no_exec(private_dir: &Path, roots: &[PathBuf]) -> Result<Restricted, String> {
    let beside = beside_roots(roots)?;
    Ok(restrict(private_dir, Some(&beside)))
}

/// Every entry of the roots' ancestors (not themselves beneath a root) that is not on the
/// way to a root, opened without following links; links and entries other than folders and
/// regular files are left out.
fn beside_roots(roots: &[PathBuf]) -> Result<Vec<(std::os::fd::OwnedFd, bool)>, String> {
    use rustix::fs::{FileType, Mode, OFlags};
    let roots: Vec<&PathBuf> = roots.iter().filter(|root| root.is_absolute()).collect();
    let on_the_way = |path: &Path| roots.iter().any(|root| root.starts_with(path));
    let beneath_a_root = |path: &Path| roots.iter().any(|root| path.starts_with(root));
    let ancestors: std::collections::BTreeSet<&Path> =
        roots.iter().flat_map(|root| root.ancestors().skip(1)).filter(|dir| !beneath_a_root(dir)).collect();
    let mut out = Vec::new();
    for dir in ancestors {
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if on_the_way(&path) {
                continue;
            }
            if out.len() >= MAX_EXEC_RULES {
                return Err(format!(
                    "the folders holding the workspace roots have more than {MAX_EXEC_RULES} entries (MAX_EXEC_RULES)"
                ));
            }
            let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let Ok(fd) = rustix::fs::open(&path, flags, Mode::empty()) else { continue };
            let Ok(stat) = rustix::fs::fstat(&fd) else { continue };
            match FileType::from_raw_mode(stat.st_mode) {
                FileType::Directory => out.push((fd, false)),
                FileType::RegularFile => out.push((fd, true)),
                _ => {}
            }
        }
    }
    Ok(out)
}

#[cfg(target_os = "linux")]
fn restrict(private_dir: &Path, beside: Option<&[(std::os::fd::OwnedFd, bool)]>) -> Restricted {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, LandlockStatus, PathBeneath, RestrictionStatus, Ruleset, RulesetAttr,
        RulesetCreatedAttr, RulesetError, RulesetStatus, Scope, path_beneath_rules,
    };

    // The newest ABI this crate knows: best-effort mode keeps what the running kernel supports.
    let abi = ABI::V10;
    let status = (|| -> Result<RestrictionStatus, RulesetError> {
        let created = Ruleset::default()
            .handle_access(AccessFs::from_all(abi))?
            .handle_access(AccessNet::from_all(abi))?
            .scope(Scope::from_all(abi))?
            .create()?;
        let created = match beside {
            None => created.add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi)))?,
            Some(beside) => {
                let read = AccessFs::ReadFile | AccessFs::ReadDir;
                let file = AccessFs::ReadFile | AccessFs::Execute;
                created.add_rules(path_beneath_rules(["/"], read))?.add_rules(beside.iter().map(|(fd, is_file)| {
                    Ok::<_, RulesetError>(PathBeneath::new(fd, if *is_file { file } else { AccessFs::from_read(abi) }))
                }))?
            }
        };
        created
            .add_rules(path_beneath_rules([private_dir], AccessFs::from_all(abi)))?
            .add_rules(path_beneath_rules(["/dev/null"], AccessFs::ReadFile | AccessFs::WriteFile))?
            .restrict_self()
    })();
    let unconfined = |word: String| Restricted { word, abi: None };
    match status {
        Err(error) => unconfined(format!("unavailable: {error}")),
        Ok(status) if status.ruleset == RulesetStatus::NotEnforced => unconfined(match status.landlock {
            LandlockStatus::NotEnabled => "unavailable: Landlock is not enabled in this kernel".to_owned(),
            LandlockStatus::NotImplemented => "unavailable: this kernel has no Landlock".to_owned(),
            other => format!("unavailable: Landlock did not enforce the ruleset ({other:?})"),
        }),
        Ok(status) => match status.landlock {
            LandlockStatus::Available { effective_abi, .. } if effective_abi < ABI::V4 => Restricted {
                word: format!("landlock without network rules (kernel Landlock ABI {})", effective_abi as i32),
                abi: Some(effective_abi as i32),
            },
            LandlockStatus::Available { effective_abi, .. } => {
                Restricted { word: LANDLOCK.to_owned(), abi: Some(effective_abi as i32) }
            }
            // Enforced, at an ABI the crate does not report: said as the plain word.
            _ => Restricted { word: LANDLOCK.to_owned(), abi: Some(1) },
        },
    }
}

/// Landlock is a Linux facility: elsewhere tools run unconfined.
#[cfg(not(target_os = "linux"))]
fn restrict(_private_dir: &Path, _beside: Option<&[(std::os::fd::OwnedFd, bool)]>) -> Restricted {
    Restricted { word: "unavailable: Landlock exists on Linux only".to_owned(), abi: None }
}
