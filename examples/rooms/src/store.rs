//! The room files: one YAML file per room in a directory, read on every call and written
//! atomically (a temporary file in the same directory, flushed to disk, then renamed over the
//! room's file), so a crash leaves either the old room or the new one, never half of one.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use crate::model::{Room, valid_name};

/// Why a room could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The name cannot name a room.
    #[error(
        "`{0}` is not a valid room name: use 1 to 64 ASCII letters, digits, `_` or `-` \
         (it is also the file name and the path /mcp/<name>)"
    )]
    InvalidName(String),
    /// No file for the room.
    #[error("room `{0}` does not exist")]
    NotFound(String),
    /// The room's file already exists.
    #[error("room `{0}` already exists")]
    Exists(String),
    /// A file could not be read, written or renamed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A room file is not valid YAML for a room.
    #[error("{path}: not a room file: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the YAML reader said.
        message: String,
    },
    /// A room file names another room.
    #[error("{path}: the file names room `{found}`; a room's file must be `<name>.yaml`")]
    NameMismatch {
        /// The file.
        path: PathBuf,
        /// The name inside it.
        found: String,
    },
    /// The room could not be written as YAML.
    #[error("room `{room}` cannot be written as YAML: {message}")]
    Serialize {
        /// The room.
        room: String,
        /// What the YAML writer said.
        message: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_owned(),
        source,
    }
}

/// The directory of room files. Writes are serialized within the process.
#[derive(Debug)]
pub struct RoomStore {
    dir: PathBuf,
    writing: Mutex<()>,
}

impl RoomStore {
    /// The rooms kept in `dir`, which is created if missing.
    pub fn open(dir: impl Into<PathBuf>) -> Result<Self, StoreError> {
        let dir = dir.into();
        fs::create_dir_all(&dir).map_err(io(&dir))?;
        Ok(Self {
            dir,
            writing: Mutex::new(()),
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path_of(&self, name: &str) -> Result<PathBuf, StoreError> {
        if !valid_name(name) {
            return Err(StoreError::InvalidName(name.to_owned()));
        }
        Ok(self.dir.join(format!("{name}.yaml")))
    }

    /// The names of the rooms, sorted.
    pub fn names(&self) -> Result<Vec<String>, StoreError> {
        let mut names = Vec::new();
        for entry in fs::read_dir(&self.dir).map_err(io(&self.dir))? {
            let entry = entry.map_err(io(&self.dir))?;
            let file_name = entry.file_name();
            let Some(stem) = file_name
                .to_str()
                .and_then(|name| name.strip_suffix(".yaml"))
            else {
                continue;
            };
            if valid_name(stem) {
                names.push(stem.to_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    /// Every room, sorted by name.
    pub fn list(&self) -> Result<Vec<Room>, StoreError> {
        self.names()?.iter().map(|name| self.load(name)).collect()
    }

    /// Reads room `name`.
    pub fn load(&self, name: &str) -> Result<Room, StoreError> {
        let path = self.path_of(name)?;
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(StoreError::NotFound(name.to_owned()));
            }
            Err(e) => return Err(io(&path)(e)),
        };
        let room: Room = serde_saphyr::from_str(&text).map_err(|e| StoreError::Parse {
            path: path.clone(),
            message: e.to_string(),
        })?;
        if room.name != name {
            return Err(StoreError::NameMismatch {
                path,
                found: room.name,
            });
        }
        Ok(room)
    }

    /// Writes a new room; refuses a name that is taken.
    pub fn create(&self, room: &Room) -> Result<(), StoreError> {
        let _writing = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        let path = self.path_of(&room.name)?;
        if path.exists() {
            return Err(StoreError::Exists(room.name.clone()));
        }
        self.write(&path, room)
    }

    /// Deletes room `name`'s file.
    pub fn delete(&self, name: &str) -> Result<(), StoreError> {
        let _writing = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        let path = self.path_of(name)?;
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(StoreError::NotFound(name.to_owned()))
            }
            Err(e) => Err(io(&path)(e)),
        }
    }

    /// Reads room `name`, lets `change` modify it, and writes it back if `change` succeeds.
    /// Returns what `change` returned.
    pub fn update<T, E: From<StoreError>>(
        &self,
        name: &str,
        change: impl FnOnce(&mut Room) -> Result<T, E>,
    ) -> Result<T, E> {
        let _writing = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        let mut room = self.load(name)?;
        let out = change(&mut room)?;
        // The name is the file's; a change cannot move the room.
        room.name = name.to_owned();
        let path = self.path_of(name)?;
        self.write(&path, &room)?;
        Ok(out)
    }

    /// Writes `room` to `path` atomically: temporary file, flush to disk, rename, then flush
    /// the directory so the rename itself survives a crash.
    fn write(&self, path: &Path, room: &Room) -> Result<(), StoreError> {
        let yaml = serde_saphyr::to_string(room).map_err(|e| StoreError::Serialize {
            room: room.name.clone(),
            message: e.to_string(),
        })?;
        let temp = self
            .dir
            .join(format!(".{}.yaml.{}.tmp", room.name, std::process::id()));
        let written = (|| {
            let mut file = fs::File::create(&temp)?;
            file.write_all(yaml.as_bytes())?;
            file.sync_all()
        })();
        if let Err(e) = written {
            let _ = fs::remove_file(&temp);
            return Err(io(&temp)(e));
        }
        if let Err(e) = fs::rename(&temp, path) {
            let _ = fs::remove_file(&temp);
            return Err(io(path)(e));
        }
        // Not every platform can open a directory to flush it; the rename is done either way.
        if let Ok(dir) = fs::File::open(&self.dir) {
            let _ = dir.sync_all();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Prompt;

    #[test]
    fn rooms_round_trip_through_their_files() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = RoomStore::open(dir.path()).expect("the store opens");
        store.create(&Room::new("alpha", "first")).expect("created");
        assert!(matches!(
            store.create(&Room::new("alpha", "again")),
            Err(StoreError::Exists(_))
        ));
        store
            .update("alpha", |room| {
                room.prompts.push(Prompt {
                    name: "hi".into(),
                    description: String::new(),
                    text: "Say: \"hi\"\n\ttwice".into(),
                });
                Ok::<_, StoreError>(())
            })
            .expect("updated");
        let room = store.load("alpha").expect("loaded");
        assert_eq!(room.prompts[0].text, "Say: \"hi\"\n\ttwice");
        assert_eq!(store.names().expect("names"), ["alpha"]);
        // No temporary file is left behind.
        let files: Vec<_> = fs::read_dir(dir.path())
            .expect("the directory lists")
            .map(|e| e.expect("an entry").file_name())
            .collect();
        assert_eq!(files, ["alpha.yaml"]);
        assert!(matches!(
            store.load("../etc"),
            Err(StoreError::InvalidName(_))
        ));
        assert!(matches!(store.load("beta"), Err(StoreError::NotFound(_))));
    }

    #[test]
    fn a_failed_change_writes_nothing() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = RoomStore::open(dir.path()).expect("the store opens");
        store.create(&Room::new("alpha", "first")).expect("created");
        let failed: Result<(), StoreError> = store.update("alpha", |room| {
            room.description = "changed".into();
            Err(StoreError::NotFound("x".into()))
        });
        assert!(failed.is_err());
        assert_eq!(store.load("alpha").expect("loaded").description, "first");
    }
}
