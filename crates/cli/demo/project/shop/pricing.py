"""Prices and discount codes."""


def apply_discount(subtotal, code):
    if code == "SAVE10":
        return subtotal * 0.9
    return subtotal
