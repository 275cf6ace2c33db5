locals {
	a = 1
}
