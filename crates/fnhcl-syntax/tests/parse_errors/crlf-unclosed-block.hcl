locals {
  a = 1
