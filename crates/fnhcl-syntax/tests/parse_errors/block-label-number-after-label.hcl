b x 1 {
}
