locals {
}
