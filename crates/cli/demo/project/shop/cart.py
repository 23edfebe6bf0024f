"""A shopping cart."""

from shop.pricing import apply_discount


class Cart:
    def __init__(self):
        self.items = []
        self.changed = False

    def add(self, name, price, quantity=1):
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        self.items.append((name, price, quantity))
        self.changed = True

    def remove(self, name):
        self.items = [item for item in self.items if item[0] != name]
        self.changed = True

    def total(self, code=None):
        subtotal = sum(price * quantity for _, price, quantity in self.items)
        return apply_discount(subtotal, code)
