//! `-t/--type`: which kinds of entries may match, and the named families of extensions.
//!
//! A `-t` value is either an entry kind spelled as fd spells it (`f`, `d`, `l`, `s`,
//! `p`, `c`, `b`, `x`, `e` and their long forms), `any` (every kind at once), or the
//! name of a family such as `images`. Kinds resolve
//! into a [`TypeFilter`] following fd's rules; a family is nothing but a list of
//! extensions, added to those of `-e`, so it costs exactly what `-e` costs.

use crate::os::dirent::EntryKind;

/// A named list of extensions usable as `-t NAME`. Lowercase, without the dot, as the
/// extension matcher wants them.
#[derive(Debug, PartialEq, Eq)]
pub struct Family {
    pub name: &'static str,
    pub extensions: &'static [&'static str],
}

/// Every family `-t` accepts; `--help` lists them from this table.
pub const FAMILIES: &[Family] = &[
    Family {
        name: "images",
        extensions: &["jpg", "jpeg", "png", "webp", "bmp", "tiff", "gif"],
    },
    Family {
        name: "audio",
        extensions: &["wav", "mp3", "flac", "ogg", "m4a"],
    },
    Family {
        name: "video",
        extensions: &["mp4", "avi", "mkv", "mov", "webm"],
    },
    Family {
        name: "models",
        extensions: &[
            "pt",
            "pth",
            "ckpt",
            "safetensors",
            "onnx",
            "h5",
            "pb",
            "tflite",
            "bin",
        ],
    },
    Family {
        name: "checkpoints",
        extensions: &["ckpt", "pt", "pth", "safetensors"],
    },
    Family {
        name: "data",
        extensions: &[
            "csv", "parquet", "arrow", "tfrecord", "jsonl", "tsv", "npy", "npz",
        ],
    },
    Family {
        name: "configs",
        extensions: &["yaml", "yml", "json", "toml", "cfg", "ini"],
    },
    Family {
        name: "python",
        extensions: &["py", "pyi", "ipynb"],
    },
    Family {
        name: "text",
        extensions: &["txt", "md", "rst", "tex"],
    },
    Family {
        name: "logs",
        extensions: &["log", "out", "err"],
    },
];

/// One entry kind named by `-t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Socket,
    Fifo,
    CharDevice,
    BlockDevice,
    Executable,
    Empty,
    /// `any`: every kind of entry, `f`, `d`, `l`, `s`, `p`, `c` and `b` together, so
    /// that a name search finds a name whatever it names.
    Any,
}

/// One parsed `-t` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeArg {
    Kind(Kind),
    Family(&'static Family),
}

/// Every spelling of a kind `-t` takes, with what it selects: what `parse_type`
/// reads, and what the completion scripts offer after `-t`.
pub const KIND_WORDS: &[(&str, Kind, &str)] = &[
    ("f", Kind::File, "regular files"),
    ("file", Kind::File, "regular files"),
    ("d", Kind::Dir, "directories"),
    ("dir", Kind::Dir, "directories"),
    ("directory", Kind::Dir, "directories"),
    ("l", Kind::Symlink, "symbolic links"),
    ("symlink", Kind::Symlink, "symbolic links"),
    ("s", Kind::Socket, "sockets"),
    ("socket", Kind::Socket, "sockets"),
    ("p", Kind::Fifo, "named pipes"),
    ("pipe", Kind::Fifo, "named pipes"),
    ("fifo", Kind::Fifo, "named pipes"),
    ("c", Kind::CharDevice, "character devices"),
    ("char-device", Kind::CharDevice, "character devices"),
    ("b", Kind::BlockDevice, "block devices"),
    ("block-device", Kind::BlockDevice, "block devices"),
    ("x", Kind::Executable, "executable entries"),
    ("executable", Kind::Executable, "executable entries"),
    ("e", Kind::Empty, "empty files and directories"),
    ("empty", Kind::Empty, "empty files and directories"),
    ("any", Kind::Any, "every kind: f d l s p c b"),
];

/// Parses one `-t` value; the error names the value and lists what is allowed.
pub fn parse_type(value: &str) -> Result<TypeArg, String> {
    let kind = match KIND_WORDS.iter().find(|&&(word, ..)| word == value) {
        Some(&(_, kind, _)) => kind,
        None => {
            return FAMILIES
                .iter()
                .find(|family| family.name == value)
                .map(TypeArg::Family)
                .ok_or_else(|| {
                    let families: Vec<&str> = FAMILIES.iter().map(|f| f.name).collect();
                    format!(
                    "unknown type '{value}' (expected f, d, l, s, p, c, b, x, e, any or a family: {})",
                    families.join(", ")
                )
                })
        }
    };
    Ok(TypeArg::Kind(kind))
}

/// Every word `-t` takes, kinds then families, with what it selects: for the
/// completion scripts.
pub fn type_words() -> Vec<(&'static str, &'static str)> {
    let kinds = KIND_WORDS.iter().map(|&(word, _, help)| (word, help));
    let families = FAMILIES
        .iter()
        .map(|family| (family.name, "a family of extensions"));
    kinds.chain(families).collect()
}

/// Which entries may match, resolved from every `-t` kind given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeFilter {
    pub files: bool,
    pub dirs: bool,
    pub symlinks: bool,
    /// `s`, `p`, `c`, `b`: which of the special kinds, as a set of [`special_bit`]s.
    pub specials: u8,
    /// `x`: only entries with an execute permission bit.
    pub executable_only: bool,
    /// `e`: only empty regular files (size 0) and empty directories (no entries).
    pub empty_only: bool,
}

impl Default for TypeFilter {
    /// Regular files only, as without `-t`.
    fn default() -> TypeFilter {
        TypeFilter::from_kinds(&[])
    }
}

impl TypeFilter {
    /// fd's rules: `f`, `d`, `l`, `s`, `p`, `c` and `b` add a kind (they are OR'ed);
    /// `x` and `e` are
    /// conditions on every kind selected (AND'ed). `x` selects regular files as well,
    /// so `-t x` alone means executable files; `e` alone means empty files and empty
    /// directories. No kind at all (no `-t`, or only families) means regular files.
    pub fn from_kinds(kinds: &[Kind]) -> TypeFilter {
        let mut filter = TypeFilter {
            files: false,
            dirs: false,
            symlinks: false,
            specials: 0,
            executable_only: false,
            empty_only: false,
        };
        for kind in kinds {
            match kind {
                Kind::File => filter.files = true,
                Kind::Dir => filter.dirs = true,
                Kind::Symlink => filter.symlinks = true,
                Kind::Socket => filter.specials |= special_bit(EntryKind::Socket),
                Kind::Fifo => filter.specials |= special_bit(EntryKind::Fifo),
                Kind::CharDevice => filter.specials |= special_bit(EntryKind::CharDevice),
                Kind::BlockDevice => filter.specials |= special_bit(EntryKind::BlockDevice),
                Kind::Executable => {
                    filter.executable_only = true;
                    filter.files = true;
                }
                Kind::Empty => filter.empty_only = true,
                Kind::Any => {
                    (filter.files, filter.dirs, filter.symlinks) = (true, true, true);
                    filter.specials = ALL_SPECIALS;
                }
            }
        }
        if !(filter.files || filter.dirs || filter.symlinks || filter.specials != 0) {
            filter.files = true;
            filter.dirs = filter.empty_only;
        }
        filter
    }

    /// True when this is the default, regular files with no condition: the walker's
    /// fastest paths are only taken then.
    pub fn is_files_only(&self) -> bool {
        *self == TypeFilter::from_kinds(&[])
    }

    /// True when an entry of the special `kind` (a FIFO, socket or device) was
    /// asked for.
    pub fn accepts_special(&self, kind: EntryKind) -> bool {
        self.specials & special_bit(kind) != 0
    }

    /// True when an entry of this `mode` (from `stat`) passes `x`; `mode` is only
    /// needed when `executable_only` is set.
    pub fn mode_passes(&self, mode: libc::mode_t) -> bool {
        !self.executable_only || mode & 0o111 != 0
    }
}

/// A set of entry kinds (regular files, directories, links, sockets, pipes and
/// devices): those whose entries matched a name search's name but not its `-t`,
/// gathered by the walk so that a search that finds nothing can say what it missed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KindSet(u8);

/// The kinds a [`KindSet`] holds, in the order messages list them: the `-t` letter
/// and what an entry of the kind is called.
const NAMED_KINDS: [(EntryKind, char, &str); 7] = [
    (EntryKind::File, 'f', "regular file"),
    (EntryKind::Dir, 'd', "directory"),
    (EntryKind::Symlink, 'l', "symbolic link"),
    (EntryKind::Socket, 's', "socket"),
    (EntryKind::Fifo, 'p', "named pipe"),
    (EntryKind::CharDevice, 'c', "character device"),
    (EntryKind::BlockDevice, 'b', "block device"),
];

impl KindSet {
    /// Adds `kind`; a kind no `-t` names (`Other`, `Unknown`) is left out.
    pub fn insert(&mut self, kind: EntryKind) {
        if let Some(at) = NAMED_KINDS.iter().position(|&(named, ..)| named == kind) {
            self.0 |= 1 << at;
        }
    }

    pub fn union(self, other: KindSet) -> KindSet {
        KindSet(self.0 | other.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn contains(self, kind: EntryKind) -> bool {
        let mut alone = KindSet::default();
        alone.insert(kind);
        !alone.is_empty() && self.0 & alone.0 == alone.0
    }

    /// The kinds in the set as their `-t` letter and name, in `-t`'s order.
    pub fn named(self) -> impl Iterator<Item = (char, &'static str)> {
        (NAMED_KINDS.iter().enumerate())
            .filter(move |&(at, _)| self.0 & (1 << at) != 0)
            .map(|(_, &(_, letter, name))| (letter, name))
    }
}

/// Every special kind's bit in [`TypeFilter::specials`].
const ALL_SPECIALS: u8 = 1 | 2 | 4 | 8;

/// The bit of a special kind in [`TypeFilter::specials`]; 0 for the other kinds.
pub fn special_bit(kind: EntryKind) -> u8 {
    match kind {
        EntryKind::Socket => 1,
        EntryKind::Fifo => 2,
        EntryKind::CharDevice => 4,
        EntryKind::BlockDevice => 8,
        _ => 0,
    }
}

/// The families as `--help` shows them, one per line.
pub fn families_help() -> String {
    let mut text = String::from("Type families (-t NAME, the same fast match as -e):\n");
    for family in FAMILIES {
        text.push_str(&format!(
            "  {:<13}{}\n",
            family.name,
            family.extensions.join(" ")
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (files, dirs, symlinks, executable_only, empty_only)
    type Resolved = (bool, bool, bool, bool, bool);

    fn filter(kinds: &[Kind]) -> Resolved {
        let f = TypeFilter::from_kinds(kinds);
        (f.files, f.dirs, f.symlinks, f.executable_only, f.empty_only)
    }

    #[test]
    fn kinds_resolve_like_fd() {
        use Kind::*;
        let cases: &[(&[Kind], Resolved)] = &[
            (&[], (true, false, false, false, false)),
            (&[File], (true, false, false, false, false)),
            (&[Dir], (false, true, false, false, false)),
            (&[Symlink], (false, false, true, false, false)),
            (&[File, Dir], (true, true, false, false, false)),
            (&[Executable], (true, false, false, true, false)),
            (&[Executable, Dir], (true, true, false, true, false)),
            (&[Empty], (true, true, false, false, true)),
            (&[Empty, File], (true, false, false, false, true)),
            (&[Dir, Empty], (false, true, false, false, true)),
            (&[Empty, Executable], (true, false, false, true, true)),
            (&[Symlink, Symlink], (false, false, true, false, false)),
            (&[Any], (true, true, true, false, false)),
            (&[Any, Executable], (true, true, true, true, false)),
            (&[Empty, Any], (true, true, true, false, true)),
        ];
        for &(kinds, want) in cases {
            assert_eq!(filter(kinds), want, "{kinds:?}");
        }
        assert!(TypeFilter::default().is_files_only());
        assert!(!TypeFilter::from_kinds(&[Empty, File]).is_files_only());
    }

    #[test]
    fn type_values_parse() {
        use Kind::*;
        let cases: &[(&str, Kind)] = &[
            ("f", File),
            ("file", File),
            ("d", Dir),
            ("dir", Dir),
            ("directory", Dir),
            ("l", Symlink),
            ("symlink", Symlink),
            ("x", Executable),
            ("executable", Executable),
            ("e", Empty),
            ("empty", Empty),
            ("s", Socket),
            ("socket", Socket),
            ("p", Fifo),
            ("pipe", Fifo),
            ("fifo", Fifo),
            ("c", CharDevice),
            ("char-device", CharDevice),
            ("b", BlockDevice),
            ("block-device", BlockDevice),
            ("any", Any),
        ];
        for &(value, kind) in cases {
            assert_eq!(parse_type(value), Ok(TypeArg::Kind(kind)), "{value}");
        }
        match parse_type("images") {
            Ok(TypeArg::Family(family)) => assert!(family.extensions.contains(&"jpeg")),
            other => panic!("{other:?}"),
        }
        for bad in ["", "F", "files", "image", "q", "pipes", "S", "all", "ANY"] {
            let err = parse_type(bad).unwrap_err();
            assert!(
                err.contains(&format!("'{bad}'")) && err.contains("images"),
                "{err}"
            );
        }
    }

    #[test]
    fn families_are_lowercase_without_dots_and_all_listed() {
        let help = families_help();
        for family in FAMILIES {
            assert!(help.contains(family.name));
            for ext in family.extensions {
                assert!(!ext.is_empty() && !ext.starts_with('.'), "{ext}");
                assert_eq!(*ext, ext.to_ascii_lowercase());
            }
        }
        // Each name is unique and cannot be mistaken for a kind.
        for (i, family) in FAMILIES.iter().enumerate() {
            assert!(FAMILIES[i + 1..].iter().all(|f| f.name != family.name));
            assert!(family.name.len() > 1);
        }
    }

    #[test]
    fn special_kinds_add_up_and_alone_select_no_files() {
        use Kind::*;
        let pipes = TypeFilter::from_kinds(&[Fifo]);
        assert_eq!(
            (pipes.files, pipes.dirs, pipes.symlinks),
            (false, false, false)
        );
        assert!(pipes.accepts_special(EntryKind::Fifo));
        assert!(!pipes.accepts_special(EntryKind::Socket));
        let all = TypeFilter::from_kinds(&[Socket, Fifo, CharDevice, BlockDevice, File]);
        assert!(all.files && !all.dirs);
        for kind in [
            EntryKind::Socket,
            EntryKind::Fifo,
            EntryKind::CharDevice,
            EntryKind::BlockDevice,
        ] {
            assert!(all.accepts_special(kind), "{kind:?}");
            assert!(!TypeFilter::default().accepts_special(kind), "{kind:?}");
        }
        for kind in [EntryKind::File, EntryKind::Dir, EntryKind::Other] {
            assert!(!all.accepts_special(kind), "{kind:?}");
        }
        assert!(!TypeFilter::from_kinds(&[CharDevice]).is_files_only());
        // `any` takes them all, as the four kinds together do.
        let any = TypeFilter::from_kinds(&[Any]);
        assert_eq!(any.specials, all.specials);
        assert_eq!(any.specials, ALL_SPECIALS);
    }

    #[test]
    fn kind_sets_name_their_kinds_in_type_order() {
        let mut set = KindSet::default();
        assert!(set.is_empty());
        for kind in [EntryKind::Symlink, EntryKind::Other, EntryKind::Unknown] {
            set.insert(kind);
        }
        let mut other = KindSet::default();
        other.insert(EntryKind::File);
        other.insert(EntryKind::BlockDevice);
        let named: Vec<_> = set.union(other).named().collect();
        assert_eq!(
            named,
            [
                ('f', "regular file"),
                ('l', "symbolic link"),
                ('b', "block device")
            ]
        );
        // Every kind `-t any` selects has a name, and `-t` takes each letter.
        for (kind, letter, _) in NAMED_KINDS {
            let mut one = KindSet::default();
            one.insert(kind);
            assert_eq!(one.named().count(), 1, "{kind:?}");
            assert!(parse_type(&letter.to_string()).is_ok());
        }
    }

    #[test]
    fn execute_bits() {
        let x = TypeFilter::from_kinds(&[Kind::Executable]);
        assert!(x.mode_passes(0o100));
        assert!(x.mode_passes(0o010));
        assert!(x.mode_passes(0o001));
        assert!(!x.mode_passes(0o644));
        assert!(TypeFilter::default().mode_passes(0o644));
    }
}
