//! Result files that are inputs, two writers of one file, files that are not regular files.
