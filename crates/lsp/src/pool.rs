//! The servers of a long-lived process: one per language and root, started on first use,
//! at most [`PoolOptions::max_servers`], shut down when idle, restarted once after a crash
//! and then reported unavailable (the server's stderr kept for the log, never in the reason).

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use editkit_run::Roots;

use crate::server::Server;
use crate::session::Session;
use crate::spec::{Language, Unavailable};

/// How a [`Pool`] runs its servers.
#[derive(Debug, Clone)]
pub struct PoolOptions {
    /// The most servers running at once (default 8); the least recently used one is shut
    /// down to start another.
    pub max_servers: usize,
    /// A server unused this long is shut down (default 10 minutes).
    pub idle: Duration,
    /// How long a server may take to answer `initialize` (default 60 s).
    pub start_wait: Duration,
    /// The `PATH` servers are looked up in (`None`: this process's). Only its absolute
    /// entries outside every root count.
    pub path: Option<OsString>,
}

impl Default for PoolOptions {
    fn default() -> Self {
        PoolOptions { max_servers: 8, idle: Duration::from_secs(600), start_wait: Duration::from_secs(60), path: None }
    }
}

/// How long a failed start is remembered: within it, a caller wanting that server gets the
/// failure again at once instead of a new start (which can take [`PoolOptions::start_wait`]).
pub const START_BACKOFF: Duration = Duration::from_secs(60);

/// How many times a crashed server is started again before its language is reported
/// unavailable for that root.
const RESTARTS: u32 = 1;

struct Slot {
    session: Option<Arc<Session>>,
    /// A caller is starting this slot's server, outside the pool's lock; others wanting the
    /// slot wait for it on [`Pool::started`].
    starting: bool,
    /// How many starts of this slot ended, and how the last one failed (for the callers that
    /// waited on it).
    starts: u64,
    start_failure: Option<Unavailable>,
    /// Until when the last failed start is given again instead of a new start.
    failed_until: Option<Instant>,
    restarts: u32,
    last_used: Instant,
    failed: Option<Unavailable>,
    /// The stderr of the last server of this slot that stopped or failed to start.
    stderr: Option<String>,
}

/// The servers of one process, keyed by language and root.
pub struct Pool {
    options: PoolOptions,
    slots: Mutex<HashMap<(Language, PathBuf), Slot>>,
    /// Signalled whenever a start ends.
    started: Condvar,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").field("options", &self.options).finish_non_exhaustive()
    }
}

/// Ends a start whatever happens to the starting caller (an error, a panic): the slot is no
/// longer starting, and the callers waiting on it wake.
struct Starting<'a> {
    pool: &'a Pool,
    key: (Language, PathBuf),
    outcome: Option<Result<Arc<Session>, Unavailable>>,
    stderr: Option<String>,
}

impl Drop for Starting<'_> {
    fn drop(&mut self) {
        let mut slots = crate::lock(&self.pool.slots);
        if let Some(slot) = slots.get_mut(&self.key) {
            slot.starting = false;
            slot.starts += 1;
            if let Some(stderr) = self.stderr.take() {
                slot.stderr = Some(stderr);
            }
            match self.outcome.take() {
                Some(Ok(session)) => {
                    slot.session = Some(session);
                    slot.start_failure = None;
                    slot.failed_until = None;
                }
                Some(Err(unavailable)) => {
                    slot.start_failure = Some(unavailable);
                    slot.failed_until = Some(Instant::now() + START_BACKOFF);
                }
                None => {
                    let reason = "the server's start was abandoned".to_owned();
                    slot.start_failure = Some(Unavailable::new(self.key.0, reason));
                    slot.failed_until = Some(Instant::now() + START_BACKOFF);
                }
            }
        }
        drop(slots);
        self.pool.started.notify_all();
    }
}

/// What [`Pool::session`] found under the lock.
enum Found {
    Ready(Arc<Session>),
    Start,
}

impl Pool {
    /// An empty pool.
    #[must_use]
    pub fn new(options: PoolOptions) -> Pool {
        Pool { options, slots: Mutex::new(HashMap::new()), started: Condvar::new() }
    }

    /// The session for `language` on `root`, starting its server if none runs (`roots`:
    /// every workspace root). A server that died is started again once; after that, and
    /// when none can start, the answer is [`Unavailable`] (the server's stderr is kept for
    /// [`Pool::last_stderr`]). The server starts outside the pool's lock: other languages
    /// and roots, and [`Pool::warm`], never wait for it; another caller wanting the same
    /// server waits for that start, up to [`PoolOptions::start_wait`] from its own call.
    ///
    /// # Errors
    /// [`Unavailable`] as above.
    pub fn session(&self, language: Language, root: &Path, roots: &Roots) -> Result<Arc<Session>, Unavailable> {
        self.shut_idle();
        let key = (language, root.to_owned());
        let deadline = Instant::now() + self.options.start_wait;
        // Sessions taken out are dropped (their servers shut down, which waits) after the
        // lock is released: declared before the guard, dropped after it.
        let mut retired: Vec<Arc<Session>> = Vec::new();
        let found = self.find_or_claim(&key, deadline, &mut retired);
        drop(retired);
        if let Found::Ready(session) = found? {
            return Ok(session);
        }
        self.start_claimed(key, roots)
    }

    /// Starts the server of `key`, whose slot this caller claimed; the slot's waiters learn
    /// the outcome.
    fn start_claimed(&self, key: (Language, PathBuf), roots: &Roots) -> Result<Arc<Session>, Unavailable> {
        let (language, root) = (key.0, key.1.clone());
        let mut starting = Starting { pool: self, key, outcome: None, stderr: None };
        let path = self.options.path.clone().or_else(|| std::env::var_os("PATH"));
        let started = Server::start_keeping_stderr(language, &root, roots, path.as_deref(), self.options.start_wait);
        let outcome = match started {
            Ok(server) => Ok(Arc::new(Session::new(server))),
            Err(failed) => {
                starting.stderr = Some(failed.stderr);
                Err(failed.unavailable)
            }
        };
        starting.outcome = Some(outcome.clone());
        drop(starting);
        outcome
    }

    /// The session for `language` on `root` by `deadline`, never waiting past it: a server
    /// not running is started on a thread of its own, and when it has not answered
    /// `initialize` by `deadline` the answer is [`Unavailable`] saying it is starting (a
    /// later call finds it running). For the post-write hook, whose wait is the write's.
    ///
    /// # Errors
    /// [`Unavailable`] as [`Pool::session`], or still starting at `deadline`.
    pub fn session_by(
        self: &Arc<Self>,
        language: Language,
        root: &Path,
        roots: &Roots,
        deadline: Instant,
    ) -> Result<Arc<Session>, Unavailable> {
        self.shut_idle();
        let key = (language, root.to_owned());
        let mut retired: Vec<Arc<Session>> = Vec::new();
        let found = self.find_or_claim(&key, deadline, &mut retired);
        drop(retired);
        let starts = match found {
            Ok(Found::Ready(session)) => return Ok(session),
            Err(unavailable) => return Err(unavailable),
            Ok(Found::Start) => {
                let slots = crate::lock(&self.slots);
                slots.get(&key).map_or(0, |slot| slot.starts)
            }
        };
        let pool = Arc::clone(self);
        let (claimed, roots) = (key.clone(), roots.clone());
        let spawned = std::thread::Builder::new()
            .name("editkit-lsp-start".to_owned())
            .spawn(move || drop(pool.start_claimed(claimed, &roots)));
        if spawned.is_err() {
            // Nothing will start it: the claim is given up.
            let mut starting = Starting { pool: self, key, outcome: None, stderr: None };
            starting.outcome = Some(Err(Unavailable::new(language, "no thread could start the server".to_owned())));
            drop(starting);
            return Err(Unavailable::new(language, "no thread could start the server".to_owned()));
        }
        let mut slots = crate::lock(&self.slots);
        while let Some(slot) = slots.get(&key) {
            if slot.starts > starts && !slot.starting {
                return match (&slot.session, &slot.start_failure) {
                    (Some(session), _) => Ok(Arc::clone(session)),
                    (None, Some(failure)) => Err(failure.clone()),
                    (None, None) => break,
                };
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            slots = crate::wait(&self.started, slots, left);
        }
        Err(Unavailable::new(
            language,
            "starting: the server was started and has not answered yet; a later write gets its diagnostics".to_owned(),
        ))
    }

    /// Under the lock: the running session of `key`, or the claim to start it (the slot
    /// marked starting, room made), waiting for another caller's start of it until
    /// `deadline`.
    fn find_or_claim(
        &self,
        key: &(Language, PathBuf),
        deadline: Instant,
        retired: &mut Vec<Arc<Session>>,
    ) -> Result<Found, Unavailable> {
        let language = key.0;
        let mut slots = crate::lock(&self.slots);
        let mut waited_for: Option<u64> = None;
        loop {
            let slot = slots.entry(key.clone()).or_insert(Slot {
                session: None,
                starting: false,
                starts: 0,
                start_failure: None,
                failed_until: None,
                restarts: 0,
                last_used: Instant::now(),
                failed: None,
                stderr: None,
            });
            slot.last_used = Instant::now();
            if let Some(session) = &slot.session {
                match session.server().broken() {
                    None => return Ok(Found::Ready(Arc::clone(session))),
                    Some(reason) => {
                        slot.stderr = Some(session.server().stderr_tail());
                        retired.extend(slot.session.take());
                        if slot.restarts >= RESTARTS {
                            let reason = crate::server::kept_private(&format!("the server stopped again ({reason})"));
                            slot.failed = Some(Unavailable::new(language, reason));
                        }
                        slot.restarts += 1;
                    }
                }
            }
            if let Some(failed) = &slot.failed {
                return Err(failed.clone());
            }
            // The start this caller waited for failed: its answer is this caller's too.
            if let Some(starts) = waited_for
                && slot.starts > starts
                && !slot.starting
                && let Some(failure) = &slot.start_failure
            {
                return Err(failure.clone());
            }
            // A start failed a moment ago: its failure again, not another start.
            if !slot.starting
                && let (Some(failure), Some(until)) = (&slot.start_failure, slot.failed_until)
                && Instant::now() < until
            {
                let mut failure = failure.clone();
                let left = until.saturating_duration_since(Instant::now()).as_secs();
                failure.reason = format!(
                    "{} (the start failed; not tried again for {left} s, START_BACKOFF)",
                    failure.reason.trim_end_matches('.')
                );
                return Err(failure);
            }
            if !slot.starting {
                // Room for one more, or one running to shut down; else every other server is
                // starting: wait for one of those starts to end (never past max_servers).
                let max = self.options.max_servers.max(1);
                let busy = slots.values().filter(|slot| slot.session.is_some() || slot.starting).count();
                let evictable = slots.iter().any(|(other, slot)| other != key && slot.session.is_some());
                if busy < max || evictable {
                    break;
                }
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(Unavailable::new(
                        language,
                        format!("starting: {max} servers (max_servers) are starting; try again"),
                    ));
                }
                slots = crate::wait(&self.started, slots, left);
                continue;
            }
            waited_for.get_or_insert(slot.starts);
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Unavailable::new(language, "starting: the server is still starting; try again".to_owned()));
            }
            slots = crate::wait(&self.started, slots, left);
        }
        // Make room first: the least recently used running server goes.
        let busy = slots.values().filter(|slot| slot.session.is_some() || slot.starting).count();
        if busy >= self.options.max_servers.max(1)
            && let Some(oldest) = slots
                .iter_mut()
                .filter(|(other, slot)| *other != key && slot.session.is_some())
                .min_by_key(|(_, slot)| slot.last_used)
                .map(|(_, slot)| slot)
        {
            retired.extend(oldest.session.take());
        }
        let slot = slots.get_mut(key).expect("the slot was inserted above");
        slot.starting = true;
        Ok(Found::Start)
    }

    /// The session for `language` on `root` only when its server already runs: never
    /// starts one (for diagnostics attached to a write).
    #[must_use]
    pub fn warm(&self, language: Language, root: &Path) -> Option<Arc<Session>> {
        let slots = crate::lock(&self.slots);
        let session = slots.get(&(language, root.to_owned()))?.session.as_ref()?;
        session.server().broken().is_none().then(|| Arc::clone(session))
    }

    /// The stderr of the last server for `language` on `root` that stopped or failed to
    /// start (its last 2,000 characters), for the user's log: never shown to the model, as
    /// it can quote files. Reasons in [`Unavailable`] only say it was kept.
    #[must_use]
    pub fn last_stderr(&self, language: Language, root: &Path) -> Option<String> {
        crate::lock(&self.slots).get(&(language, root.to_owned()))?.stderr.clone()
    }

    /// How many servers run.
    #[must_use]
    pub fn running(&self) -> usize {
        crate::lock(&self.slots).values().filter(|slot| slot.session.is_some()).count()
    }

    /// How many servers are starting (their `initialize` not answered yet).
    #[must_use]
    pub fn starting(&self) -> usize {
        crate::lock(&self.slots).values().filter(|slot| slot.starting).count()
    }

    /// Shuts down the servers idle longer than [`PoolOptions::idle`].
    pub fn shut_idle(&self) {
        let idle = self.options.idle;
        let mut retired = Vec::new();
        for slot in crate::lock(&self.slots).values_mut() {
            if slot.session.is_some() && slot.last_used.elapsed() >= idle {
                retired.extend(slot.session.take());
            }
        }
        // The guard is gone: shutting the servers down holds up no other pool user.
        drop(retired);
    }
}
