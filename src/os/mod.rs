//! What pfind asks of the operating system, each kind of call in a room of its own:
//! [`dirent`] lists a directory, [`cookies`] lists one in pieces, [`listing_id`] tells whether another process's descriptor lists it with the same cookies, [`fstype`] tells a network filesystem, [`host`] names the machine, [`huge_pages`] asks for huge pages under a large buffer, [`open`] opens one relative to another without
//! leaving the tree, [`read`] reads a small file whole and [`whole_file`] a large one (mapped under a lease by [`leased_map`] on Linux), [`stat`] asks what an entry is and [`stat_many`] asks it of many at once, [`limits`] reads the process's resource limits, [`userdb`] looks users and
//! groups up, and [`path`] makes a printed path absolute. Nothing here knows about
//! the walk.

pub mod cookies;
pub mod cpus;
pub mod dirent;
pub mod fstype;
pub mod host;
pub mod huge_pages;
#[cfg(target_os = "linux")]
pub mod leased_map;
pub mod limits;
pub mod listing_id;
pub mod open;
pub mod path;
pub mod rank_root;
pub mod read;
pub mod stat;
pub mod stat_many;
pub mod userdb;
pub mod whole_file;
