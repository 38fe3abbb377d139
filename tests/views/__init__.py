"""Tests of lab/views: each page's records and the sentences written from them."""
