# comment {
// another {
block {
  /* { */ a = 1
