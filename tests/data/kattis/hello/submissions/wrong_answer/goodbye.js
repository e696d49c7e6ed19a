console.log("Goodbye World!");
