print("homegate")
