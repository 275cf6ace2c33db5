resource 1 {
}
