//! What a hostile or careless user can type: every case asserts the exit status, that no
//! signal killed the process, that the message names the file, the item and the problem,
//! that the inputs are unchanged, that memory stays bounded where it matters and that no
//! temporary folder is left behind. One module per kind of misuse.

mod common;

#[path = "hostile_input/archives.rs"]
mod archives;
#[path = "hostile_input/commands.rs"]
mod commands;
#[path = "hostile_input/files.rs"]
mod files;
#[path = "hostile_input/signals.rs"]
mod signals;
