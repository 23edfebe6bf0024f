def greet(name):
    return f'hello {name}'


def main():
    greet('a')
    greet('a')
