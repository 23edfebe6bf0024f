//! `spawn_no_exec_in`: the child may execute programs anywhere but beneath the roots.

use std::io::Read as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use editkit_run::{Invocation, PrivateDir, Roots, find_program, reap, spawn, spawn_no_exec_in};

use std::os::unix::ffi::OsStrExt as _;

fn script(path: &Path, word: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\necho {word}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Runs `sh -c <line>` spawned by `spawner`; gives its stdout and confinement.
fn sh(roots: &Roots, line: &str, no_exec: bool) -> (String, String) {
    let shell = find_program("sh", roots).unwrap();
    let dir = PrivateDir::new(roots).unwrap();
    let invocation = Invocation {
        program: shell.path,
        args: vec!["-c".to_owned(), line.to_owned()],
        stdin: &[],
        dir: dir.path(),
        path: shell.search_path,
        timeout: std::time::Duration::ZERO,
        max_stdout: 0,
        env: Vec::new(),
    };
    let (child, confinement) = if no_exec { spawn_no_exec_in(&invocation, roots) } else { spawn(&invocation) };
    let mut child = child.unwrap();
    drop(child.stdin.take());
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    reap(&mut child);
    (out, confinement)
}

#[test]
fn nothing_beneath_a_root_executes_and_everything_else_does() {
    let temp = tempfile::tempdir().unwrap();
    let base = temp.path().canonicalize().unwrap();
    let root = base.join("repo");
    script(&root.join("bin/planted"), "planted-ran");
    script(&root.join("deep/er/planted"), "deep-ran");
    script(&base.join("outside/tool"), "outside-ran");
    std::os::unix::fs::symlink(root.join("bin"), base.join("link-into-root")).unwrap();
    let roots = Roots::new(&[&root]);
    let line = format!(
        "{0}/bin/planted; {0}/deep/er/planted; {1}/link-into-root/planted; {1}/outside/tool; echo done",
        root.display(),
        base.display()
    );
    let (out, confinement) = sh(&roots, &line, true);
    assert!(confinement.starts_with("landlock"), "{confinement}");
    assert_eq!(out, "outside-ran\ndone\n", "{confinement}");
    // The control: the plain spawn runs them all.
    let (out, _) = sh(&roots, &line, false);
    assert_eq!(out, "planted-ran\ndeep-ran\nplanted-ran\noutside-ran\ndone\n");
}

/// Whether a child of `spawn_no_exec_in` reached each listener this test holds (a TCP
/// listener, a UDP socket, a pathname and an abstract Unix socket), and its confinement word.
fn reached(roots: &Roots, base: &Path, path: Option<&std::ffi::OsStr>) -> ([bool; 4], String) {
    use std::os::linux::net::SocketAddrExt as _;
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let pathname = base.join("sock");
    let unix = std::os::unix::net::UnixListener::bind(&pathname).unwrap();
    let name = format!("editkit-run-test-{}", std::process::id());
    let address = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let abstract_unix = std::os::unix::net::UnixListener::bind_addr(&address).unwrap();
    let script = format!(
        "import socket\n\
         def go(f):\n    try:\n        f()\n    except OSError:\n        pass\n\
         go(lambda: socket.create_connection(('127.0.0.1', {tcp}), timeout=5))\n\
         go(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', {udp})))\n\
         go(lambda: socket.socket(socket.AF_UNIX).connect({pathname:?}))\n\
         go(lambda: socket.socket(socket.AF_UNIX).connect('\\0{name}'))\n",
        tcp = tcp.local_addr().unwrap().port(),
        udp = udp.local_addr().unwrap().port(),
        pathname = pathname.display().to_string(),
    );
    let python = editkit_run::find_program_on(path.or(std::env::var_os("PATH").as_deref()), "python3", roots)
        .expect("python3 on PATH");
    let dir = PrivateDir::new(roots).unwrap();
    let invocation = Invocation {
        program: python.path,
        args: vec!["-c".to_owned(), script],
        stdin: &[],
        dir: dir.path(),
        path: python.search_path,
        timeout: std::time::Duration::ZERO,
        max_stdout: 0,
        env: Vec::new(),
    };
    let (child, confinement) = spawn_no_exec_in(&invocation, roots);
    let mut child = child.unwrap();
    drop(child.stdin.take());
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    // Every attempt has returned once the child exits: whatever reached a socket is queued.
    assert!(child.wait().unwrap().success(), "the probe failed: {stderr}");
    for listener in [&unix, &abstract_unix] {
        listener.set_nonblocking(true).unwrap();
    }
    tcp.set_nonblocking(true).unwrap();
    udp.set_nonblocking(true).unwrap();
    let got =
        [tcp.accept().is_ok(), udp.recv(&mut [0_u8; 8]).is_ok(), unix.accept().is_ok(), abstract_unix.accept().is_ok()];
    (got, confinement)
}

/// The confinement word of `spawn_no_exec_in` says exactly what the kernel gives: each
/// channel it says is open was reached, each it says is closed was not. Nothing about this
/// machine is written in: the child tries them all.
#[test]
fn the_confinement_word_says_what_the_kernel_gives() {
    let temp = tempfile::tempdir().unwrap();
    let base = temp.path().canonicalize().unwrap();
    let root = base.join("repo");
    std::fs::create_dir_all(&root).unwrap();
    let roots = Roots::new(&[&root]);
    says_what_the_kernel_gives(&roots, &base, None);
    // With no `unshare` on PATH: no network namespace, and the word says so.
    let bin = base.join("bin");
    std::fs::create_dir(&bin).unwrap();
    // A python3 that is a binary, not a shell shim (which would need more on PATH).
    let python = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .filter_map(|dir| dir.join("python3").canonicalize().ok())
        .find(|found| std::fs::read(found).is_ok_and(|bytes| bytes.starts_with(b"\x7fELF")))
        .expect("a python3 binary on PATH");
    std::os::unix::fs::symlink(python, bin.join("python3")).unwrap();
    let word = says_what_the_kernel_gives(&roots, &base, Some(bin.as_os_str()));
    assert!(word.contains("no network namespace: no `unshare` on PATH"), "{word}");
    // F3: an `unshare` on PATH that exits 0 and runs its program without unsharing: the
    // namespace is checked, not taken from the exit code, and the word says none was made.
    let fake = base.join("fake-bin");
    std::fs::create_dir(&fake).unwrap();
    std::os::unix::fs::symlink(bin.join("python3").canonicalize().unwrap(), fake.join("python3")).unwrap();
    script(&fake.join("unshare"), "");
    std::fs::write(
        fake.join("unshare"),
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo fake; exit 0; fi\nshift 2\nexec \"$@\"\n",
    )
    .unwrap();
    let word = says_what_the_kernel_gives(&roots, &base, Some(fake.as_os_str()));
    assert!(word.contains("no network namespace: `unshare` did not make one"), "{word}"); // F6: a program whose path is not UTF-8 is started as it is (never a lossy copy of its
    // path), without a namespace, and the word says why.
    let odd = base.join(std::ffi::OsStr::from_bytes(b"bin-\xff"));
    std::fs::create_dir(&odd).unwrap();
    std::os::unix::fs::symlink(bin.join("python3").canonicalize().unwrap(), odd.join("python3")).unwrap();
    let real = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .find(|dir| dir.join("unshare").exists())
        .expect("unshare on PATH");
    let path = std::env::join_paths([odd.clone(), real]).unwrap();
    let word = says_what_the_kernel_gives(&roots, &base, Some(path.as_os_str()));
    assert!(word.contains("no network namespace: the program's path is not UTF-8"), "{word}");
}

fn says_what_the_kernel_gives(roots: &Roots, base: &Path, path: Option<&std::ffi::OsStr>) -> String {
    let _ = std::fs::remove_file(base.join("sock"));
    let ([tcp, udp, pathname, abstract_unix], word) = reached(roots, base, path);
    eprintln!("{word}; reached: tcp {tcp}, udp {udp}, pathname {pathname}, abstract {abstract_unix}");
    assert!(word.starts_with("landlock ("), "{word}");
    let open = word.split_once("; ").map_or("", |(_, open)| open.split(" (no network").next().unwrap_or(""));
    let says_open = |name: &str| open.contains(name);
    assert_eq!(tcp, says_open("TCP"), "TCP: {word}");
    assert_eq!(udp, says_open("UDP"), "UDP: {word}");
    let unix_both = open.contains("Unix sockets") && !open.contains("pathname") && !open.contains("abstract");
    assert_eq!(pathname, says_open("pathname Unix") || unix_both, "pathname Unix sockets: {word}");
    assert_eq!(abstract_unix, says_open("abstract Unix") || unix_both, "abstract Unix sockets: {word}");
    assert!(!word.contains("no TCP") || !tcp, "{word}");
    assert_eq!(word.contains("network namespace of its own"), !udp && !tcp && !abstract_unix, "{word}");
    word
}
