resource "foo {
}
