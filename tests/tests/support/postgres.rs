//! A PostgreSQL of our own: from the system's packages, started on loopback in a temporary
//! data folder, stopped on drop.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use mcpgen_tests::free_port;

/// The folder of PostgreSQL's programs (`initdb`, `pg_ctl`), newest version first.
fn pg_bin() -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|bin| bin.join("initdb").is_file())
        .collect();
    found.sort();
    found.pop().unwrap_or_else(|| {
        panic!("PostgreSQL is not installed (/usr/lib/postgresql/*/bin/initdb); scripts/test.sh installs it with apt-get install postgresql")
    })
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// A PostgreSQL server in a temporary folder, listening on 127.0.0.1 only; stopped on drop.
pub struct Postgres {
    _dir: tempfile::TempDir,
    data: PathBuf,
    socket: PathBuf,
    log: PathBuf,
    port: u16,
    bin: PathBuf,
    /// Run PostgreSQL's programs as the `postgres` user (they refuse to run as root).
    as_postgres: bool,
}

impl Postgres {
    pub fn start() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let as_postgres = is_root();
        if as_postgres {
            let status = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(dir.path())
                .status()
                .expect("chown");
            assert!(status.success(), "chown the data folder to postgres");
        }
        let pg = Self {
            data: dir.path().join("data"),
            socket: dir.path().to_path_buf(),
            log: dir.path().join("postgres.log"),
            _dir: dir,
            port: free_port(),
            bin: pg_bin(),
            as_postgres,
        };
        let out = pg
            .program("initdb")
            .args(["-U", "postgres", "-A", "trust", "--no-sync", "-D"])
            .arg(&pg.data)
            .output()
            .expect("initdb runs");
        assert!(
            out.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        pg.up();
        pg
    }

    fn program(&self, name: &str) -> Command {
        let path = self.bin.join(name);
        if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(path);
            command
        } else {
            Command::new(path)
        }
    }

    pub fn up(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.socket.display()
        );
        let status = self
            .program("pg_ctl")
            .args(["-w", "-t", "30", "-D"])
            .arg(&self.data)
            .arg("-l")
            .arg(&self.log)
            .args(["-o", &options, "start"])
            .stdout(Stdio::null())
            .status()
            .expect("pg_ctl start");
        assert!(
            status.success(),
            "PostgreSQL starts: {}",
            std::fs::read_to_string(&self.log).unwrap_or_default()
        );
    }

    pub fn down(&self) {
        let status = self
            .program("pg_ctl")
            .args(["-w", "-m", "fast", "-D"])
            .arg(&self.data)
            .arg("stop")
            .stdout(Stdio::null())
            .status()
            .expect("pg_ctl stop");
        assert!(status.success(), "PostgreSQL stops");
    }

    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// A `psql` session reading SQL from its standard input (piped), quiet.
    pub fn session(&self) -> std::process::Child {
        Command::new("psql")
            .args(["-X", "-q", "-h", "127.0.0.1", "-U", "postgres", "-p"])
            .arg(self.port.to_string())
            .args(["-d", "postgres", "-v", "ON_ERROR_STOP=1"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("psql runs")
    }

    /// The rows of `sql`, one line each, columns separated by `|`.
    pub fn query(&self, sql: &str) -> Vec<String> {
        let out = Command::new("psql")
            .args(["-X", "-A", "-t", "-h", "127.0.0.1", "-U", "postgres", "-p"])
            .arg(self.port.to_string())
            .args(["-d", "postgres", "-c", sql])
            .output()
            .expect("psql runs");
        assert!(
            out.status.success(),
            "psql {sql}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect()
    }

    pub fn count(&self, sql: &str) -> u64 {
        self.query(sql)
            .first()
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("a number from {sql}"))
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = self
            .program("pg_ctl")
            .args(["-m", "immediate", "-D"])
            .arg(&self.data)
            .arg("stop")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}
