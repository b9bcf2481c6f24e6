fn main() {
    mrtr_lab::start();
}
