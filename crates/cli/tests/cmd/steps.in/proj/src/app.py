def greet(name):
    return 'hello ' + name


def main():
    greet('a')
    greet('a')
