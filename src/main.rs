//! Entry point: install the panic panel, then mount the app. Everything else is in the library.

fn main() {
    mrtr_lab::start();
}
