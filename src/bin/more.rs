//! Entry point of the second module: the widgets below the first screen (see `more.rs`).

fn main() {
    mrtr_lab::more::start();
}
