locals {
  a = 1
